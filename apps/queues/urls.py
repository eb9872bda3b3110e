app_name = "queues"
urlpatterns: list = []
api_urlpatterns: list = []
