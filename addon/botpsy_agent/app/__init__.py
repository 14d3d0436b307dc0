"""The running app: the options (`config`), start-up and wiring (`startup`, `runtime`), the
Supervisor's API (`supervisor`), the health file (`health`), the CPU check (`cpu`) and the
`doctor` command. It imports every other part; no other part imports it, except the options."""
