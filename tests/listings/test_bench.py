"""The benchmark runs (tiny size; the real run is `python -m bench.listings`, see docs/listings.md)."""

from tests.common import task_queue


def test_the_benchmark_runs_at_a_tiny_size(app):
    import bench.listings

    with task_queue.kept():  # the benchmark's application configures the process's queue for itself
        result = bench.listings.main(["--pharmacies", "5", "--items", "10", "--repeats", "3", "--explain",
                                        "--database", "clinicrecords_bench_smoke"])
    assert result["listings"] == 50
    assert set(result["searches"]) == {"text", "code", "text+geo", "pk"}
    assert all(entry["p50_ms"] > 0 for entry in result["searches"].values())
