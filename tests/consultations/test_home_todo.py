"""A round whose questions are all decided waits on the admin's home page until it is closed for codification."""

from apps.consultations import services


def test_a_round_ready_to_codify_is_on_the_admins_to_do_list_until_it_is_closed(client_for, admin, expert, make_question):
    question = make_question()
    round = question.round
    link = f'href="/consultations/rounds/{round.pk}/"'
    assert link not in client_for(admin).get("/").content.decode()  # the question is still open
    services.submit_answer(question=question, acting_user=expert, option="B")
    html = client_for(admin).get("/").content.decode()
    assert link in html and f"{round} has every question decided" in html
    services.close_round(round=round, acting_user=admin)
    assert link not in client_for(admin).get("/").content.decode()
