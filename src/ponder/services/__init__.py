"""Services: the only code that talks to Ollama, search engines, files and the network."""
