import pytest

from apps.core.errors import InvalidInput
from apps.releases import licences


def test_the_papers_releases_pass_the_licence_check():
    licences.check("Apache-2.0", [{"name": "VoiceBench", "license": "Apache-2.0"}])
    licences.check("Apache-2.0", [{"name": "OpenAudioBench", "license": "Apache-2.0"}])
    licences.check("CC-BY-NC-SA-4.0", [{"name": "KSS", "license": "CC-BY-NC-SA-4.0"},
                                        {"name": "KMSAV", "license": "CC-BY-NC-SA-4.0"},
                                        {"name": "Seoul Corpus", "license": "CC-BY-NC-2.0"}])


@pytest.mark.parametrize("release_licence, sources, named, reason", [
    ("Apache-2.0", [("VoiceBench", "Apache-2.0"), ("KSS", "CC-BY-NC-SA-4.0")], "KSS", "non-commercial"),
    ("CC-BY-4.0", [("Seoul Corpus", "CC-BY-NC-2.0")], "Seoul Corpus", "non-commercial"),
    ("CC-BY-NC-4.0", [("KMSAV", "CC-BY-NC-SA-4.0")], "KMSAV", "share-alike"),
    ("CC-BY-NC-SA-3.0", [("KSS", "CC-BY-NC-SA-4.0")], "KSS", "4.0 or later"),
    ("CC-BY-SA-4.0", [("KSS", "CC-BY-NC-SA-4.0")], "KSS", "non-commercial"),
    ("CC-BY-4.0", [("Lectures", "CC-BY-ND-4.0")], "Lectures", "no derivatives"),
])
def test_a_licence_that_drops_a_sources_terms_is_refused_naming_the_source(release_licence, sources, named, reason):
    with pytest.raises(licences.LicenceRefused) as refused:
        licences.check(release_licence, [{"name": n, "license": lic} for n, lic in sources])
    assert f"source {named} " in str(refused.value) and reason in str(refused.value)


def test_unknown_licences_and_missing_sources_are_refused():
    with pytest.raises(licences.LicenceRefused, match="unknown licence 'GPL-ish'"):
        licences.check("GPL-ish", [{"name": "x", "license": "MIT"}])
    with pytest.raises(licences.LicenceRefused, match="source Mystery: unknown licence"):
        licences.check("MIT", [{"name": "Mystery", "license": "all rights reserved"}])
    with pytest.raises(licences.LicenceRefused, match="at least one source"):
        licences.check("MIT", [])


@pytest.mark.django_db
def test_building_refuses_a_spoken_qa_release_that_takes_kss_under_apache(benchmark, admin):
    from apps.releases.models import Release
    from apps.releases.services import create_release

    with pytest.raises(InvalidInput, match="source KSS is CC-BY-NC-SA-4.0") as refused:
        create_release(acting_user=admin, kind="spoken-qa", source_id=benchmark.pk, name="kvb", version="1.0.0",
                       sources=[{"name": "VoiceBench", "license": "Apache-2.0"}, {"name": "KSS", "license": "CC-BY-NC-SA-4.0"}])
    assert refused.value.field == "license"
    assert not Release.objects.exists()
    # Without sources given, the benchmark names its own (VoiceBench, Apache-2.0) and the default licence fits.
    release = create_release(acting_user=admin, kind="spoken-qa", source_id=benchmark.pk, name="kvb", version="1.0.0")
    assert release.sources == [{"name": "VoiceBench", "license": "Apache-2.0"}] and release.license == "Apache-2.0"
