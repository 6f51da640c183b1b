package io.github.distlock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.jayway.jsonpath.JsonPath;

/** Talks to a running sample over real HTTP, as a user's client would. */
public final class ShopClient {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private final String base;

	public ShopClient(int port) {
		this.base = "http://127.0.0.1:" + port;
	}

	public Reply get(String path) {
		return send(HttpRequest.newBuilder(URI.create(this.base + path)).timeout(TIMEOUT).GET().build());
	}

	public Reply post(String path) {
		return send(HttpRequest.newBuilder(URI.create(this.base + path))
			.timeout(TIMEOUT)
			.POST(HttpRequest.BodyPublishers.noBody())
			.build());
	}

	private Reply send(HttpRequest request) {
		try {
			HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
			return new Reply(response.statusCode(), response.body(), response);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** A response with its JSON body at hand. */
	public record Reply(int status, String body, HttpResponse<String> response) {

		public <T> T json(String path) {
			return JsonPath.read(this.body, path);
		}

		public String header(String name) {
			return this.response.headers().firstValue(name).orElse(null);
		}

		@Override
		public String toString() {
			return this.status + " " + this.body;
		}

	}

}
