"""The model runtime: llama.cpp in-process, behind an interface the agent can keep when a
stronger machine serves the same model over llama.cpp's own server later (DESIGN.md #9).
Nothing about llama-cpp-python leaks past this package."""
