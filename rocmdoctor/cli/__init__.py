"""The command line: the typer app, the entry point, the option vocabulary and one module per command."""
