"""Agent-written questions (fact extraction, topic summary) through call_agent and the real OpenAI SDK
against the fake provider: the evidence span must occur in the transcript (one retry with the error,
then "needs attention"); good questions go to human review."""

from apps.authoring.agent_questions import write_question, write_questions
from apps.authoring.models import QuestionStatus
from apps.jobs.services import start_job

GOOD = {"question": "화자는 어디에서 친구를 만났나요?", "options": ["학교", "시장", "도서관", "병원"], "correct_index": 0,
        "evidence": "학교에서 친구를 만나고"}
MADE_UP = {**GOOD, "evidence": "공원에서 친구를 만나고"}


def test_a_good_question_goes_to_review_with_its_agent_call(fake_llm, question_set, kss_corpus):
    fake_llm.reply(GOOD)
    clip = kss_corpus.clips.get(utterance_id="1_0000")
    question = write_question(question_set=question_set, clip=clip, capability="fact_extraction")
    assert question.status == QuestionStatus.IN_REVIEW and question.work_item is not None
    assert question.answer == "학교" and question.evidence == GOOD["evidence"]
    [call] = question.agent_calls.all()
    assert call.role == "question_writer" and call.prompt_name == "kmmau_question"
    assert question.provenance["agent_calls"] == [call.pk]
    assert "학교에서 친구를 만나고 학교를 나왔어요." in str(fake_llm.requests[0]["body"])


def test_an_evidence_span_missing_from_the_transcript_is_retried_with_the_error(fake_llm, question_set, kss_corpus):
    fake_llm.reply(MADE_UP)
    fake_llm.reply(GOOD)
    clip = kss_corpus.clips.get(utterance_id="1_0000")
    question = write_question(question_set=question_set, clip=clip, capability="fact_extraction")
    assert question.status == QuestionStatus.IN_REVIEW
    assert len(fake_llm.requests) == 2
    assert "does not occur in the transcript" in str(fake_llm.requests[1]["body"])
    assert question.agent_calls.count() == 2


def test_two_refused_answers_leave_the_question_needing_attention(fake_llm, question_set, kss_corpus):
    fake_llm.reply(MADE_UP)
    fake_llm.reply({**GOOD, "options": ["학교", "학교", "도서관", "병원"]})
    clip = kss_corpus.clips.get(utterance_id="1_0000")
    question = write_question(question_set=question_set, clip=clip, capability="fact_extraction")
    assert question.status == QuestionStatus.NEEDS_ATTENTION and question.work_item is None
    assert "refused twice" in question.attention and "same after normalising spaces" in question.attention


def test_an_agent_that_keeps_answering_nonsense_leaves_it_needing_attention(fake_llm, question_set, kss_corpus):
    fake_llm.malformed(times=2)
    clip = kss_corpus.clips.get(utterance_id="1_0001")
    question = write_question(question_set=question_set, clip=clip, capability="topic_summary")
    assert question.status == QuestionStatus.NEEDS_ATTENTION and "question writer failed" in question.attention


def test_write_questions_runs_as_a_job_and_skips_what_is_written(fake_llm, admin, question_set, kss_corpus,
                                                                 django_capture_on_commit_callbacks):
    fake_llm.always({"question": "이 음성은 주로 무엇에 관한 것인가요?", "options": ["학교 생활", "날씨", "운동", "요리"],
                     "correct_index": 0, "evidence": "학교"})
    with django_capture_on_commit_callbacks(execute=True):
        job = start_job(kind="authoring.agent_questions", title="t", acting_user=admin,
                        params={"set": question_set.pk, "corpus": kss_corpus.pk, "capability": "topic_summary", "limit": 5})
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert {k: job.result[k] for k in ("in_review", "needs_attention")} == {"in_review": 1, "needs_attention": 2}
    again = write_questions(question_set=question_set, corpus=kss_corpus, capability="topic_summary")
    assert again == {"in_review": 0, "needs_attention": 0}


def test_a_job_with_questions_needing_attention_says_so_and_links_to_them_with_a_retry(
        fake_llm, admin, client, question_set, kss_corpus, django_capture_on_commit_callbacks):
    fake_llm.always({"question": "이 음성은 주로 무엇에 관한 것인가요?", "options": ["학교 생활", "날씨", "운동", "요리"],
                     "correct_index": 0, "evidence": "학교"})
    with django_capture_on_commit_callbacks(execute=True):
        job = start_job(kind="authoring.agent_questions", title="t", acting_user=admin,
                        params={"set": question_set.pk, "corpus": kss_corpus.pk, "capability": "topic_summary", "limit": 5})
    job.refresh_from_db()
    assert job.status_text == "Succeeded, 2 need attention"
    client.force_login(admin)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    link = f"/authoring/sets/{question_set.pk}/#needs-attention"
    assert "Succeeded, 2 need attention" in page and link in page
    listing = client.get(link).content.decode()
    assert 'id="needs-attention"' in listing and "Write these 2 again" in listing

    fake_llm.reset()

    def quoting_the_transcript(body):
        transcript = body["messages"][-1]["content"].split('"""')[1].strip()
        return {"question": "이 음성은 주로 무엇에 관한 것인가요?", "options": ["학교 생활", "날씨", "운동", "요리"],
                "correct_index": 0, "evidence": transcript[:6]}

    fake_llm.always(quoting_the_transcript)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/authoring/sets/{question_set.pk}/generate/",
                               {"corpus": kss_corpus.pk, "capability": "topic_summary", "limit": 2, "retry": "1"})
    retried = job.__class__.objects.order_by("-pk").first()
    assert response.status_code == 302 and retried.status == "succeeded", retried.error
    assert retried.status_text == "Succeeded", list(question_set.questions.values_list("attention", flat=True))
    assert question_set.questions.filter(capability="topic_summary", status=QuestionStatus.IN_REVIEW).count() == 3
    assert not question_set.questions.filter(status=QuestionStatus.NEEDS_ATTENTION).exists()
