from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    # The footer's language switcher posts without a CSRF token: forcing someone's language
    # is all a forged post could do, and without a token in every page's footer the public
    # pages are the same for every anonymous reader, so they can be served from cache.
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("config.api_urls")),
    path("", include("config.web_urls")),
]

# Under /api/ errors are the API's JSON {code, message, details}; elsewhere the HTML pages.
handler400 = "apps.core.errorpages.bad_request"
handler403 = "apps.core.errorpages.permission_denied"
handler404 = "apps.core.errorpages.page_not_found"
handler500 = "apps.core.errorpages.server_error"
