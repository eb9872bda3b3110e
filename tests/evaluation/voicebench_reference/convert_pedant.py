"""One-off: convert PEDANT's classifier (zli12321/qa_metrics, MIT) from its scikit-learn pickles to the plain
data file apps/evaluation/scoring/data/voicebench_pedant.json.gz that apps.evaluation.scoring.voicebench.pedant
reads, so Sori needs neither scikit-learn 1.3.2 nor pickle at run time. Not part of the suite: it needs
scikit-learn==1.3.2 and joblib in a separate environment, and the two files qa_metrics 0.2.17 downloads at
run time (qa_metrics/classifier/lr_classifier and tf-idf_vectorizer of the qa_metrics repository):

    python convert_pedant.py LR_CLASSIFIER TFIDF_VECTORIZER QA_METRICS_COMMIT OUT.json.gz

Every number is written with repr (exact round trip), in the vectoriser's own column order."""

import gzip
import hashlib
import json
import sys

import joblib


def main(clf_path, vec_path, commit, out):
    clf, vec = joblib.load(clf_path), joblib.load(vec_path)
    params = vec.get_params()
    assert (params["analyzer"], params["ngram_range"], params["stop_words"], params["strip_accents"]) == \
        ("word", (1, 1), None, None)
    assert (params["lowercase"], params["norm"], params["use_idf"], params["sublinear_tf"]) == (True, "l2", True, False)
    assert params["preprocessor"] is None and params["tokenizer"] is None
    assert type(clf).__name__ in ("SGDClassifier", "LogisticRegression") and clf.coef_.shape[0] == 1
    terms = [None] * len(vec.vocabulary_)
    for term, column in vec.vocabulary_.items():
        terms[column] = term
    assert clf.coef_.shape[1] == len(terms) + 3  # the tf-idf columns, then F1, precision, recall
    digest = {p: hashlib.sha1(open(p, "rb").read()).hexdigest() for p in (clf_path, vec_path)}
    data = {
        "version": f"pedant-{commit[:7]}",
        "source": {
            "repository": "zli12321/qa_metrics (MIT licence, Copyright (c) 2024 Zongxia Li)",
            "commit": commit,
            "files_sha1": {"qa_metrics/classifier/lr_classifier": digest[clf_path],
                      "qa_metrics/classifier/tf-idf_vectorizer": digest[vec_path]},
            "read_by": "qa_metrics 0.2.17 PEDANT (VoiceBench requirements.txt)",
        },
        "vectorizer": {"token_pattern": params["token_pattern"], "terms": terms,
                       "idf": [float(x) for x in vec.idf_]},
        "classifier": {"kind": type(clf).__name__, "classes": [str(c) for c in clf.classes_],
                       "coef": [float(x) for x in clf.coef_[0]], "intercept": float(clf.intercept_[0])},
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    with open(out, "wb") as f:
        f.write(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))


if __name__ == "__main__":
    main(*sys.argv[1:])
