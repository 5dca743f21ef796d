"""The built-in commands of `relreason`, one module each, registered the way a family's are.

Each module has ``register(subparsers, context)`` (see ``cli/context.py``), as a family's
``commands.py`` does; ``cli/parser.py`` calls them in the order `relreason --help` lists them.
"""
