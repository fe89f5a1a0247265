from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
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
