"""One-off: record qa_metrics 0.2.17's own PEDANT readings, for tests/evaluation/test_scoring_voicebench.py to
compare Sori's reimplementation with (pedant_expected.json). Not part of the suite: run it where qa_metrics
0.2.17, scikit-learn 1.3.2 and the classifier files (placed in qa_metrics/classifier/ as lr_classifier.pkl and
tf-idf_vectorizer.pkl) are installed. Nothing is downloaded: the socket layer is closed first.

    python record_pedant.py OUT.json [N]

Each case is VoiceBench's call, PEDANT().evaluate([reference.lower()], response.lower(), prompt.lower()),
with the classifier's decision value where the classifier decided (scikit-learn's decision_function on the
same features)."""

import json
import random
import socket
import sys


def _no_network(*args, **kwargs):
    raise OSError("record_pedant.py reaches no network")


socket.socket.connect = _no_network

QA = [
    ("What is the capital of France?", "Paris"),
    ("Who wrote Romeo and Juliet?", "William Shakespeare"),
    ("How many legs does a spider have?", "8"),
    ("In what year did World War II end?", "1945"),
    ("What is the chemical symbol for water?", "H2O"),
    ("Which planet is known as the Red Planet?", "Mars"),
    ("Who painted the Mona Lisa?", "Leonardo da Vinci"),
    ("What's the largest ocean on Earth?", "the Pacific Ocean"),
    ("What language is spoken in Brazil?", "Portuguese"),
    ("who was the first president of the united states", "George Washington"),
    ("What is the tallest mountain in the world?", "Mount Everest"),
    ("Which country hosted the 2002 World Cup with Japan?", "South Korea"),
    ("What is the boiling point of water in Celsius?", "100 degrees"),
    ("Who discovered penicillin?", "Alexander Fleming"),
    ("What currency is used in Japan?", "yen"),
    ("What's the name of the longest river in Africa?", "Nile"),
    ("How many continents are there?", "seven"),
    ("Who is the author of 'Pride and Prejudice'?", "Jane Austen"),
    ("what do bees make", "honey"),
    ("What instrument has 88 keys?", "piano"),
    ("Where is the Eiffel Tower?", "Paris, France"),
    ("What's the square root of 81?", "9"),
    ("Which element has atomic number 1?", "Hydrogen"),
    ("When did the Berlin Wall fall?", "November 9, 1989"),
    ("Who's the Greek god of the sea? Isn't it obvious?", "Poseidon"),
    ("한국의 수도는 어디인가요?", "서울"),
]
FRAMES = [
    "{a}", "{a}.", "The answer is {a}.", "I think it's {a}, but I'm not sure.", "It is {a}!",
    "I believe the answer would be {x}.", "That's {x}, not {a}.", "I don't know.", "",
    "Well, many people think {x}, but actually it is {a}.", "**{a}**", "Answer: {x}",
    "Hmm, let me think... {x}? No wait, I'm not sure.", "It's probably {x} or something like that.",
    "The {a} is the answer you're looking for; it's well known.", "I can't answer that question.",
    "Sorry, I didn't catch that. Could you repeat the question?", "{x}", "It was {x}, I'm fairly sure.",
    "The correct response is {x}, which many confuse with {a}.", "{part}", "Probably {part}.",
    "I'd say {lower} - that's what I remember from school.", "It's {x}. Definitely {x}.",
    "As far as I know, {part} is correct. Isn't it?", "No idea, maybe {x}?", "u r asking bout {x} ya?",
    "The question asks {q} The answer: {a}", "{x} and {a}", "You're asking about {q} It's {x}.",
    "정답은 {a}입니다.", "제 생각에는 {x}인 것 같아요.", "잘 모르겠어요.", "Ça dépend: {x}, peut-être.",
]
WRONG = ["London", "Berlin", "Charles Dickens", "six", "1939", "CO2", "Venus", "Michelangelo", "the Atlantic",
         "Spanish", "John Adams", "K2", "Japan", "100 degrees Fahrenheit", "Marie Curie", "dollar", "Amazon",
         "five", "Emily Brontë", "wax", "guitar", "Rome", "3", "Helium", "1991", "부산", "the moon", "a cat"]


# Hand-written cases first: paraphrases, partial names, denials, numbers, Korean.
EXTRA = [
    ("the Pacific Ocean", "the pacific", "What's the largest ocean on Earth?"),
    ("William Shakespeare", "It was Shakespeare.", "Who wrote Romeo and Juliet?"),
    ("Leonardo da Vinci", "Da Vinci painted it.", "Who painted the Mona Lisa?"),
    ("Paris", "The capital is London.", "What is the capital of France?"),
    ("Paris", "It is not Paris, it is Lyon.", "What is the capital of France?"),
    ("8", "Spiders have eight legs.", "How many legs does a spider have?"),
    ("seven", "There are 7 continents.", "How many continents are there?"),
    ("1945", "It ended in nineteen forty-five.", "In what year did World War II end?"),
    ("H2O", "Water is H₂O.", "What is the chemical symbol for water?"),
    ("Mount Everest", "Everest, in the Himalayas.", "What is the tallest mountain in the world?"),
    ("George Washington", "Washington was the first one.", "who was the first president of the united states"),
    ("서울", "수도는 서울이에요.", "한국의 수도는 어디인가요?"),
    ("서울", "부산입니다.", "한국의 수도는 어디인가요?"),
    ("yen", "The Japanese yen.", "What currency is used in Japan?"),
    ("Nile", "I'm not sure, maybe the Congo?", "What's the name of the longest river in Africa?"),
]


def cases(n, seed=7):
    rng = random.Random(seed)
    out = list(EXTRA)
    while len(out) < n:
        q, a = rng.choice(QA)
        r = rng.choice(FRAMES).format(a=a, x=rng.choice(WRONG + [a]), part=rng.choice(a.split()), lower=a.lower(),
                                      q=q.lower())
        if rng.random() < 0.3:
            r = r.upper() if rng.random() < 0.5 else r.replace("'", "\u2019")
        if rng.random() < 0.2:
            r = "Let me explain in some detail. " * rng.randint(1, 4) + r
        out.append((a, r, q))
    return out


def main(out, n=400):
    import contractions
    import numpy as np
    import qa_metrics.pedant as qp
    from qa_metrics.utils.tools import calculate_f1_score_with_precision, normalize_answer, remove_punctuation
    from scipy.sparse import hstack

    qp.download_link = lambda *args, **kwargs: None  # the classifier files are in place already
    pedant = qp.PEDANT()
    rows = []
    for reference, response, prompt in cases(int(n)):
        ref, resp, q = reference.lower(), response.lower(), prompt.lower()
        match = bool(pedant.evaluate([ref], resp, q))
        r, c = remove_punctuation(normalize_answer(ref)), remove_punctuation(normalize_answer(resp))
        decision = None
        if r not in c:
            text = "[CLS] " + c + " [SEP] " + r + " [SEP] " + contractions.fix(normalize_answer(q)) + " [SEP]"
            f, p, rc = calculate_f1_score_with_precision(c, r)
            features = hstack([pedant.tokenizer.transform([text]), np.array([[f]]), np.array([[p]]), np.array([[rc]])])
            decision = float(pedant.model.decision_function(features)[0])
        rows.append({"reference": reference, "response": response, "prompt": prompt, "match": match,
                     "decision": decision})
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"source": "qa_metrics 0.2.17 PEDANT, scikit-learn 1.3.2, classifier of zli12321/qa_metrics "
                             "1c19479", "cases": rows}, f, ensure_ascii=False, indent=0)


if __name__ == "__main__":
    main(*sys.argv[1:])
