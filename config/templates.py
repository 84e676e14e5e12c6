"""Django's template engine, minus per-number localisation.

Lantern is English only (``USE_I18N = False``): a number prints exactly as Python prints it. Django still
passes every ``{{ number }}`` through its locale-aware formatter, which was 7–13 % of a sheet's or a log's
render time (hundreds of dice faces, slots and bonuses a page). Rendering with ``use_l10n=False``, as
``{% localize off %}`` would, prints them with ``str()``.
"""

from django.template.backends.django import DjangoTemplates, Template, reraise
from django.template.context import make_context
from django.template.exceptions import TemplateDoesNotExist


class PlainNumbersTemplate(Template):
    def render(self, context=None, request=None):
        context = make_context(context, request, autoescape=self.backend.engine.autoescape)
        context.use_l10n = False
        try:
            return self.template.render(context)
        except TemplateDoesNotExist as exc:  # as Django's own backend reports it
            reraise(exc, self.backend)


class PlainNumbersTemplates(DjangoTemplates):
    def from_string(self, template_code):
        return PlainNumbersTemplate(self.engine.from_string(template_code), self)

    def get_template(self, template_name):
        return PlainNumbersTemplate(super().get_template(template_name).template, self)
