app_name = "consultations"
urlpatterns: list = []
api_urlpatterns: list = []
