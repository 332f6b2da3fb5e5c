"""How the referee reaches a bot: the bot interface, the wire protocol, in-process and
process seats, the host that runs a Python bot, and its sandbox and confinement."""
