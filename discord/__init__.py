"""Play from Discord (issue 43): Discord's HTTP interactions endpoint, the links between Discord users and channels
and Lantern's accounts and campaigns, and the slash commands, each a call of the command layer every door uses."""
