from django.contrib import admin

from campaigns.models import Campaign, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("name", "system", "created_at")
    list_filter = ("system",)
    search_fields = ("name",)
    inlines = [MembershipInline]
