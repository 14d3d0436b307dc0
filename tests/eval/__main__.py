from tests.eval.run import main

main()
