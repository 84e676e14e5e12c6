"""Small helpers every app shares (issue 38): the request type, URL converters, security headers, JSON bodies,
refusals and busy answers, the template engine, the deploy stamp. The lowest layer: it imports no app of ours,
and ``core.errors`` imports nothing at all, so the pure ``rules`` may build on it."""
