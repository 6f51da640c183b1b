package io.github.distlock.sample.demo.processes;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Where the two-process demo's database comes from: the embedded PostgreSQL (started here, as on a machine without
 * one), a configured server that fails rather than being replaced, and the database the demo creates on either.
 */
class PostgresServerTests {

	@Test
	void theEmbeddedPostgresqlRunsHereTakesTheShopsSchemaAndStops() throws Exception {
		int port;
		try (PostgresServer server = PostgresServer.locate(settings(null, true))) {
			assertThat(server.isEmbedded()).isTrue();
			assertThat(server.description()).startsWith("an embedded PostgreSQL on 127.0.0.1:");
			port = Integer.parseInt(server.url("x").replaceAll(".*:(\\d+)/x$", "$1"));
			try (DemoDatabase database = DemoDatabase.create(server)) {
				assertThat(database.product("limited-sneaker").stock()).isEqualTo(20);
				assertThat(database.product("concert-ticket").stock()).isEqualTo(100);
				database.restock("limited-sneaker", 3);
				assertThat(database.product("limited-sneaker").stock()).isEqualTo(3);
				assertThat(database.orders("limited-sneaker")).isZero();
				try (ProductTableLock table = database.lockProductTable()) {
					assertThat(table.hasWaiters()).isFalse();
				}
			}
		}
		assertThat(listens(port)).as("the embedded server, after close").isFalse();
	}

	@Test
	void aConfiguredServerThatCannotBeUsedFailsAndSaysHowToNameAnother() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		PostgresServer server = PostgresServer
			.locate(settings("jdbc:postgresql://127.0.0.1:" + closedPort + "/postgres", false));
		assertThat(server.isEmbedded()).as("never replaced by another server").isFalse();
		assertThatIllegalStateException().isThrownBy(() -> DemoDatabase.create(server))
			.withMessageContaining("the configured PostgreSQL")
			.withMessageContaining("--sample.demo.processes.postgres.url=jdbc:postgresql://HOST:5432/postgres");
	}

	@Test
	void theShopsUrlNamesTheDemosDatabaseOnTheSameServer() {
		assertThat(PostgresServer.withDatabase("jdbc:postgresql://db:5433/postgres", "demo"))
			.isEqualTo("jdbc:postgresql://db:5433/demo");
		assertThat(PostgresServer.withDatabase("jdbc:postgresql://a:5432,b:5432/postgres?ssl=true&x=/y", "demo"))
			.isEqualTo("jdbc:postgresql://a:5432,b:5432/demo?ssl=true&x=/y");
		assertThat(PostgresServer.withDatabase("jdbc:postgresql://db", "demo")).isEqualTo("jdbc:postgresql://db/demo");
		assertThatIllegalStateException().isThrownBy(() -> PostgresServer.withDatabase("jdbc:h2:mem:x", "demo"))
			.withMessageContaining("Not a PostgreSQL JDBC URL");
	}

	private static ProcessDemoSettings.Postgres settings(String url, boolean embedded) {
		return new ProcessDemoSettings.Postgres(url, "postgres", null, embedded);
	}

	private static boolean listens(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
