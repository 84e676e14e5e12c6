from django.contrib.auth.forms import UserCreationForm


class SignupForm(UserCreationForm):
    """Django's own sign-up form: username, password twice, with the password validators."""

    class Meta(UserCreationForm.Meta):
        fields = ("username",)
