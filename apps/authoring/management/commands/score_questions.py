from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.authoring.models import QuestionSet
from apps.authoring.services import score_predictions
from apps.core.errors import ApplicationError


class Command(BaseCommand):
    help = ("Score a model's answers (JSON array or JSONL with id and model_output or model_prediction) on a KMMAU "
            "set: accuracy per capability and category and the average, beside a random-guess baseline.")

    def add_arguments(self, parser):
        parser.add_argument("set_name", metavar="SET")
        parser.add_argument("--predictions", required=True, type=Path)
        parser.add_argument("--model", required=True)

    def handle(self, *args, set_name, predictions, model, **options):
        question_set = QuestionSet.objects.filter(name=set_name).first()
        if question_set is None:
            raise CommandError(f"no question set named {set_name!r}")
        if not predictions.is_file():
            raise CommandError(f"{predictions}: no such file")
        try:
            run = score_predictions(question_set=question_set, data=predictions.read_bytes(), file=predictions.name,
                                    model_name=model)
        except ApplicationError as refused:
            raise CommandError(refused.message) from None
        result = run.result
        self.stdout.write(f"{'category':<11} {'capability':<20} {'n':>5} {model[:12]:>12} {'random':>7}")
        for cap in result["capabilities"].values():
            self.stdout.write(f"{cap['category']:<11} {cap['label']:<20} {cap['total']:>5} {cap['accuracy']:>12.1f} "
                              f"{cap['random']:>7.1f}")
        for name, cat in result["categories"].items():
            self.stdout.write(f"{name:<11} {'(all)':<20} {cat['total']:>5} {cat['accuracy']:>12.1f} {cat['random']:>7.1f}")
        self.stdout.write(f"{'Average':<32} {result['questions']:>5} {result['average']:>12.1f} "
                          f"{result['random_average']:>7.1f}")
        if result["missing"]:
            self.stdout.write(f"{result['missing']} questions had no prediction (counted wrong)")
