"""A hot query compiled to SQL once per process, then run with new values: the ORM's own rows, without its build.

Building a query's SQL costs the ORM far more than running it does (the character-and-seat read of every sheet
request: about 1 ms of Python to compile, 0.1 ms to run on SQLite). ``Prepared`` builds the queryset once with
sentinel values in the places of its inputs, keeps the compiled SQL and the positions of the sentinels among its
parameters, and thereafter runs that SQL with the real values, turning the row into model instances as the
ORM's ``ModelIterable`` does (its converters, its ``select_related`` populators, its annotations).

Only for a query whose shape never depends on its inputs' values (the same joins and subqueries for every user
and every row): a sentinel must come back in the parameters exactly where its value goes, and ``Prepared``
refuses to build otherwise (each sentinel found once or more, nothing else equal to one).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]  # in Django; not in its stubs

# Negative: never a row's id, so never equal to another parameter by chance (a query's constants, e.g. a limit).
M = TypeVar("M", bound=Model)

SENTINELS = (-730_001, -730_002, -730_003, -730_004)


class Prepared(Generic[M]):
    """``build(*sentinels)``: the queryset, its inputs standing in; ``first(*values)``: its first row or None;
    ``rows(*values)``: its first ``limit`` rows (a list read: build the prepared query with ``limit``)."""

    def __init__(
        self, build: Callable[..., QuerySet[M]], inputs: int, sentinels: tuple = SENTINELS, *, limit: int = 1
    ) -> None:
        # Other sentinels for inputs that aren't ids (a string key): each unlike any value the query holds.
        self.build, self.inputs, self.sentinels = build, inputs, sentinels[:inputs]
        self.limit = limit
        self._compiled: dict[str, _Compiled[M]] = {}
        self._lock = threading.Lock()

    def first(self, *values: Any, using: str = DEFAULT_DB_ALIAS) -> M | None:
        return self._for(using).first(values)

    def rows(self, *values: Any, using: str = DEFAULT_DB_ALIAS) -> list[M]:
        return self._for(using).rows(values)

    def _for(self, using: str) -> _Compiled[M]:
        compiled = self._compiled.get(using)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(using) or _Compiled(
                    self.build(*self.sentinels), using, self.sentinels, self.limit
                )
                self._compiled[using] = compiled
        return compiled


class _Compiled(Generic[M]):
    def __init__(self, queryset: QuerySet[M], using: str, sentinels: tuple, limit: int = 1) -> None:
        queryset = queryset[:limit]
        compiler = queryset.query.get_compiler(using=using)
        self.sql, params = compiler.as_sql()
        self.params = list(params)
        if not all(sentinel in self.params for sentinel in sentinels):
            raise ValueError("an input the query never uses: its shape depends on it, so it can't be prepared")
        self.where = [[n for n, p in enumerate(self.params) if p == sentinel] for sentinel in sentinels]
        self.compiler, self.using = compiler, using
        klass_info, select = compiler.klass_info, compiler.select
        self.model = klass_info["model"]
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        self.span = (start, end)
        self.init_list = [f[0].target.attname for f in select[start:end]]
        self.populators = get_related_populators(klass_info, select, using)
        self.annotations = dict(compiler.annotation_col_map or {})
        # What results_iter works out on every call: the columns' converters, once (issue 39).
        fields = [s[0] for s in select[: compiler.col_count]]
        self.converters = compiler.get_converters(fields)
        self.composite = compiler.has_composite_fields(fields)  # none here; results_iter knows them if ever

    def first(self, values: tuple) -> M | None:
        with connections[self.using].cursor() as cursor:
            cursor.execute(self.sql, self._params(values))
            row = cursor.fetchone()
        return None if row is None else self._instance(row)

    def rows(self, values: tuple) -> list[M]:
        with connections[self.using].cursor() as cursor:
            cursor.execute(self.sql, self._params(values))
            return [self._instance(row) for row in cursor.fetchall()]

    def _params(self, values: tuple) -> list:
        params = list(self.params)
        for positions, value in zip(self.where, values, strict=False):
            for n in positions:
                params[n] = value
        return params

    def _instance(self, row) -> M:
        if self.composite:
            (row,) = self.compiler.results_iter([[row]])
        elif self.converters:
            (row,) = self.compiler.apply_converters([row], self.converters)
        start, end = self.span
        obj = self.model.from_db(self.using, self.init_list, row[start:end])
        for populator in self.populators:
            populator.populate(row, obj)
        for name, position in self.annotations.items():
            setattr(obj, name, row[position])
        return obj
