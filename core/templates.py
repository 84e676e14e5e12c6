"""Django's template engine, minus per-number localisation; and the form renderer.

Lantern is English only (``USE_I18N = False``): a number prints exactly as Python prints it. Django still
passes every ``{{ number }}`` through its locale-aware formatter, which was 7–13 % of a sheet's or a log's
render time (hundreds of dice faces, slots and bonuses a page). Rendering with ``use_l10n=False``, as
``{% localize off %}`` would, prints them with ``str()``.
"""

from django.forms.renderers import BaseRenderer, Jinja2
from django.forms.renderers import DjangoTemplates as DjangoTemplatesRenderer
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


class FormRenderer(BaseRenderer):
    """Form fields drawn by Jinja2 from Django's own Jinja2 copies of its form templates: the same elements,
    at about a third of the Django-template cost (the GM's table draws ~25 fields). A template with no Jinja2
    copy (the admin's widget wrappers) is drawn by Django's default form renderer, as before."""

    def __init__(self) -> None:
        self.jinja2, self.django = Jinja2(), DjangoTemplatesRenderer()

    def get_template(self, template_name):
        try:
            return self.jinja2.get_template(template_name)
        except TemplateDoesNotExist:
            return self.django.get_template(template_name)
