app_name = "transfer"
urlpatterns: list = []
api_urlpatterns: list = []
