"""The emulation of GitHub's side (github_runner.py) against the behaviour it copies."""

from __future__ import annotations

from github_runner import Contexts, Run, condition, evaluate, upload


def test_download_artifact_unpacks_one_match_flat_several_in_folders_and_merges_on_request(tmp_path):
    """download-artifact v8.0.1: `path` for one artifact (or merge-multiple), `path/<name>` for several."""
    run = Run()
    run.store("shard-a", {"results.json": b"a"})
    run.download(tmp_path / "one", {"pattern": "shard-*", "path": "shards"})
    assert (tmp_path / "one/shards/results.json").read_bytes() == b"a"
    run.store("shard-b", {"results.json": b"b"})
    run.download(tmp_path / "two", {"pattern": "shard-*", "path": "shards"})
    assert (tmp_path / "two/shards/shard-b/results.json").read_bytes() == b"b"
    run.download(tmp_path / "merged", {"pattern": "shard-*", "path": "shards", "merge-multiple": "true"})
    assert (tmp_path / "merged/shards/results.json").is_file()  # the same file name: the last one wins


def test_a_rerun_downloads_the_newest_artifact_of_each_name(tmp_path):
    run = Run()
    run.store("shard-a", {"a/results.json": b"attempt 1"})
    run.store("shard-b", {"b/results.json": b"attempt 1"})
    run.attempt = 2
    run.store("shard-b", {"b/results.json": b"attempt 2"})
    run.download(tmp_path, {"pattern": "shard-*", "path": "shards", "merge-multiple": "true"})
    assert (tmp_path / "shards/a/results.json").read_bytes() == b"attempt 1"
    assert (tmp_path / "shards/b/results.json").read_bytes() == b"attempt 2"


def test_upload_artifact_stores_a_directorys_contents_a_lone_file_without_folders_several_below_their_ancestor(
        tmp_path):
    (tmp_path / "shard/model-a").mkdir(parents=True)
    (tmp_path / "shard/model-a/results.json").write_text("{}")
    (tmp_path / "shard/.hidden").write_text("x")
    assert set(upload(tmp_path, "shard/")) == {"model-a/results.json"}
    assert set(upload(tmp_path, "shard/model-a/results.json")) == {"results.json"}
    assert upload(tmp_path, "nothing/") == {}
    assert set(upload(tmp_path, "shard/model-a/results.json\nshard/model-a/absent.json\n")) == {"results.json"}
    (tmp_path / "shard/other.json").write_text("{}")
    assert set(upload(tmp_path, "shard/model-a/results.json\nshard/other.json")) == {"model-a/results.json",
                                                                                    "other.json"}


def test_if_conditions_add_success_unless_a_status_function_is_named_and_compare_case_insensitively():
    failed = Contexts({"needs": {"report": {"result": "failure", "outputs": {"publish": "true"}}}}, succeeded=False)
    assert condition("${{ needs.report.outputs.publish == 'true' }}", failed) is False  # success() && ...
    assert condition("${{ !cancelled() && needs.report.outputs.publish == 'true' }}", failed) is True
    assert condition(None, failed) is False and condition("always()", failed) is True
    assert evaluate("needs.report.result == 'FAILURE'", failed) is True
    assert evaluate("needs.nobody.outputs.x == ''", failed) is True  # a missing property reads as ''
