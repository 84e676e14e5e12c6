"""The live table: announcing changes (events), fanning them out (hub) and streaming them (stream).

``characters`` and ``campaigns`` publish through ``live.events``; nothing here imports them: who may
open a campaign's stream is asked through ``settings.LIVE_MEMBERSHIP_CHECK``.
"""
