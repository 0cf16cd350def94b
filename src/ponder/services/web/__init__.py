"""Reading web pages safely: fetching, extraction, the SSRF guard and TLS."""
