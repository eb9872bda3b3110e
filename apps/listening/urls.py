app_name = "listening"
urlpatterns: list = []
api_urlpatterns: list = []
