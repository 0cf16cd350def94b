"""The model stage: calls to the model server, budgets, and checks of what it writes."""
