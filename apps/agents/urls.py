app_name = "agents"
urlpatterns: list = []
api_urlpatterns: list = []
