package io.github.distlock.test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * A database of a test's own on a real server: a fresh database created on the machine's PostgreSQL or MariaDB
 * (dropped again on close), or an in-memory H2 database. Tests never share one, so no test sees another's locks.
 * <p>
 * The servers are found at {@code 127.0.0.1:5432} (user {@code postgres}, trust authentication) and
 * {@code 127.0.0.1:3306} (user {@code root}, no password) unless {@code DISTLOCK_TEST_POSTGRES} or
 * {@code DISTLOCK_TEST_MARIADB} give another {@code host:port}. When nothing listens at the default address and no
 * other was given, or when {@code -Ddistlock.test.databases=embedded} says so, a server embedded in the test JVM is
 * started instead ({@link EmbeddedDatabaseServers}), and the test says so on standard error. A server that was given
 * but cannot be reached fails the test with what to do; nothing is skipped.
 */
public final class PrivateDatabase implements AutoCloseable {

	private final String kind;

	private final String serverUrl;

	private final String user;

	private final String name;

	private final HikariDataSource dataSource;

	private PrivateDatabase(String kind, String serverUrl, String databaseUrl, String user, String name) {
		this.kind = kind;
		this.serverUrl = serverUrl;
		this.user = user;
		this.name = name;
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(databaseUrl);
		config.setUsername(user);
		config.setMaximumPoolSize(16);
		config.setConnectionTimeout(5_000);
		config.setPoolName("distlock-test-" + kind);
		this.dataSource = new HikariDataSource(config);
	}

	/** A new database on the machine's PostgreSQL. */
	public static PrivateDatabase postgresql() {
		return postgresqlAt(address("DISTLOCK_TEST_POSTGRES", "127.0.0.1:5432", EmbeddedDatabaseServers::postgresql,
				"PostgreSQL"));
	}

	/** A new database on the JVM's embedded PostgreSQL, started if need be. */
	static PrivateDatabase onEmbeddedPostgresql() {
		return postgresqlAt(EmbeddedDatabaseServers.postgresql());
	}

	private static PrivateDatabase postgresqlAt(String address) {
		String server = "jdbc:postgresql://" + address + "/";
		String name = newName();
		execute("PostgreSQL", server + "postgres", "postgres", "CREATE DATABASE " + name,
				"start it with 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start', or install "
						+ "it with 'apt-get install -y postgresql' (.ci/run does both), or point DISTLOCK_TEST_POSTGRES "
						+ "at a server whose user postgres may create databases");
		return new PrivateDatabase("postgresql", server + "postgres", server + name, "postgres", name);
	}

	/** A new database on the machine's MariaDB (or MySQL). */
	public static PrivateDatabase mariadb() {
		return mariadbAt(address("DISTLOCK_TEST_MARIADB", "127.0.0.1:3306", EmbeddedDatabaseServers::mariadb,
				"MariaDB"));
	}

	/** A new database on the JVM's embedded MariaDB, started if need be. */
	static PrivateDatabase onEmbeddedMariadb() {
		return mariadbAt(EmbeddedDatabaseServers.mariadb());
	}

	private static PrivateDatabase mariadbAt(String address) {
		String server = "jdbc:mariadb://" + address + "/";
		String name = newName();
		execute("MariaDB", server, "root", "CREATE DATABASE " + name,
				"start it with 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd', or install "
						+ "it with 'apt-get install -y mariadb-server' (.ci/run does both), or point "
						+ "DISTLOCK_TEST_MARIADB at a server whose user root (no password) may create databases");
		return new PrivateDatabase("mariadb", server, server + name, "root", name);
	}

	/** A new in-memory H2 database, kept until closed. */
	public static PrivateDatabase h2() {
		String name = newName();
		return new PrivateDatabase("h2", null, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", name);
	}

	public DataSource dataSource() {
		return this.dataSource;
	}

	/** The JDBC URL of this database, for Spring Boot's {@code spring.datasource.url}. */
	public String url() {
		return this.dataSource.getJdbcUrl();
	}

	public String user() {
		return this.user;
	}

	public String kind() {
		return this.kind;
	}

	/** Runs a statement on this database. */
	public void execute(String sql) {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + ": " + ex.getMessage(), ex);
		}
	}

	@Override
	public void close() {
		this.dataSource.close();
		if (this.serverUrl != null) {
			String drop = this.kind.equals("postgresql") ? "DROP DATABASE IF EXISTS " + this.name + " WITH (FORCE)"
					: "DROP DATABASE IF EXISTS " + this.name;
			execute(this.kind, this.serverUrl, this.user, drop, "");
		}
	}

	private static String newName() {
		byte[] random = new byte[6];
		ThreadLocalRandom.current().nextBytes(random);
		return "distlock_test_" + HexFormat.of().formatHex(random);
	}

	/**
	 * The server's address: the one given in the variable; else the default, when something listens there (or the
	 * build asked for embedded servers); else an embedded server's.
	 */
	private static String address(String variable, String fallback, Supplier<String> embedded, String server) {
		String configured = System.getenv(variable);
		if (configured != null && !configured.isBlank()) {
			return configured.strip();
		}
		boolean forced = "embedded".equals(System.getProperty("distlock.test.databases"));
		if (!forced && listens(fallback)) {
			return fallback;
		}
		String address;
		try {
			address = embedded.get();
		}
		catch (NoClassDefFoundError ex) {
			throw new IllegalStateException("No " + server + " at " + fallback + ", and no embedded one on this class "
					+ "path (" + ex.getMessage() + "): start or install " + server + " (.ci/run does), or set "
					+ variable + " to a server's host:port", ex);
		}
		System.err.println("distlock tests: " + (forced ? "embedded servers asked for" : "no " + server + " at "
				+ fallback) + "; using an embedded " + server + " at " + address);
		return address;
	}

	private static boolean listens(String address) {
		int colon = address.lastIndexOf(':');
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(address.substring(0, colon),
					Integer.parseInt(address.substring(colon + 1))), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static void execute(String server, String url, String user, String sql, String remedy) {
		try (Connection connection = DriverManager.getConnection(url, user, "");
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(server + " at " + url + " (user " + user + ") could not run '" + sql
					+ "': " + ex.getMessage() + (remedy.isEmpty() ? "" : ". To run these tests, " + remedy + "."), ex);
		}
	}

}
