import rewardkit as rk

# Nothing listens on the discard port, so every request is refused.
rk.http_status_equals("http://127.0.0.1:9/", timeout=2, weight=1)
rk.http_status_equals("http://127.0.0.1:9/health", status=404, timeout=2, weight=2)
rk.http_response_contains("http://127.0.0.1:9/", "ok", timeout=2, weight=4)
rk.http_response_contains("http://127.0.0.1:9/", "", timeout=2, weight=8)
rk.file_exists("marker.txt", weight=16)  # passes, so the sum is 16
