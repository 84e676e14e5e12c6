"""Lantern's HTTP API (issue 28): the pages' reads and writes for programs, under /api/, with API tokens.

Built on django-ninja (api.app, one router per area): the same selectors, services, locks and caps as the pages,
answered as JSON. Nothing here decides a rule or a permission of its own: api.access asks the selectors who
may do what."""
