package io.github.distlock.sample.demo.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The demo's HTTP client: purchases and health checks, sent to the shops from outside as any client sends them. */
final class ShopHttp {

	private final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	/**
	 * Posts a purchase and waits for the answer.
	 * @throws UncheckedIOException if no answer came
	 */
	Reply post(URI uri, Duration timeout) {
		try {
			return Reply.of(this.client.send(purchase(uri, timeout), HttpResponse.BodyHandlers.ofString()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("POST " + uri + " failed: " + ex, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during POST " + uri, ex);
		}
	}

	/** Posts a purchase; the answer comes later. */
	CompletableFuture<Reply> postAsync(URI uri, Duration timeout) {
		return this.client.sendAsync(purchase(uri, timeout), HttpResponse.BodyHandlers.ofString()).thenApply(Reply::of);
	}

	/** Whether the shop answers its health check with UP; false while it does not listen yet. */
	boolean healthy(URI health) {
		try {
			HttpResponse<String> response = this.client.send(
					HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5)).GET().build(),
					HttpResponse.BodyHandlers.ofString());
			return response.statusCode() == 200 && "UP".equals(Reply.json(response.body()).path("status").asString());
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during a health check of " + health, ex);
		}
	}

	private static HttpRequest purchase(URI uri, Duration timeout) {
		return HttpRequest.newBuilder(uri).timeout(timeout).POST(HttpRequest.BodyPublishers.noBody()).build();
	}

	/**
	 * A shop's answer to a purchase.
	 *
	 * @param status the HTTP status
	 * @param outcome SOLD, SOLD_OUT or STALE_TOKEN; {@code null} when the answer carries none (a 503, an error)
	 * @param fencingToken the token the purchase ran under; 0 when none
	 */
	record Reply(int status, String outcome, long fencingToken) {

		static Reply of(HttpResponse<String> response) {
			JsonNode body = json(response.body());
			String outcome = body.path("outcome").isString() ? body.path("outcome").asString() : null;
			return new Reply(response.statusCode(), outcome, body.path("fencingToken").asLong(0));
		}

		private static JsonNode json(String body) {
			try {
				JsonNode node = JsonMapper.shared().readTree(body);
				return (node != null) ? node : JsonMapper.shared().missingNode();
			}
			catch (JacksonException ex) {
				return JsonMapper.shared().missingNode();
			}
		}

		boolean staleToken() {
			return this.status == 409 && "STALE_TOKEN".equals(this.outcome);
		}

		@Override
		public String toString() {
			return this.status + ((this.outcome != null) ? " " + this.outcome : "")
					+ ((this.fencingToken != 0) ? ", fencing token " + this.fencingToken : "");
		}

	}

}
