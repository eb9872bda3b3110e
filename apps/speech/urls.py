app_name = "speech"
urlpatterns: list = []
api_urlpatterns: list = []
