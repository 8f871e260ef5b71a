"""Subcommands that live in their own modules (see ``cli.LAZY_COMMANDS``)."""
