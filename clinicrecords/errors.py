class InvalidInput(ValueError):
    """Input an operator or a service call got wrong. Nothing was written; the message says what to fix."""
