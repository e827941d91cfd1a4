"""`gpufleet preflight` and what it shares with `plan` and `check`: the stack's declared quotas, fits and
ceiling (`settings`), the need each quota must meet and the prices each pool pays (`needs`), and the
clouds' quota readers (`clients`)."""
