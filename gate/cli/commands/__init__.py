"""What the CLI's commands other than `run` do (init, validate, models, baseline bless, history, calibrate, sample),
kept out of the registration modules so those stay a thin argument layer; only `gate.cli` imports them."""
