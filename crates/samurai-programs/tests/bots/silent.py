# Prints nothing.
