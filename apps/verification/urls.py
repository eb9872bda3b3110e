app_name = "verification"
urlpatterns: list = []
api_urlpatterns: list = []
