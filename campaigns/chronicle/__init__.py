"""The session chronicle (issue 40): ``build`` the pure function over plain records, ``read`` the records from the
database. Each reader's chronicle is built when read, never stored."""
