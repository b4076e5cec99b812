"""The providers of generated text: `types` (the protocol), `openai`, `command`, `local`; `access` decides where an
OpenAI-compatible provider may send a key; `retry` is the backoff policy."""
