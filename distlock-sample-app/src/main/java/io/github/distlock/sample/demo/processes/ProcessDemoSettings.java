package io.github.distlock.sample.demo.processes;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;

import io.github.distlock.sample.demo.DemoSettings;

/**
 * Settings of the two-process demo alone, under {@code sample.demo.processes.*}. The scenario itself (product,
 * stock, buyers, attempts, racy pause) is {@link DemoSettings}, shared with the one-JVM demo.
 *
 * @param lease the lease of the stock lock in the shops, so about how long the frozen holder must stay frozen
 * @param lockWait how long a buyer waits for the stock lock in the shops before the shop answers 503
 * @param startupTimeout how long the shops may take to report UP
 * @param jvmOptions the shops' JVM options: small heaps and little JIT work, since two shops, Redis, PostgreSQL and
 * the buyers share the machine
 * @param keepLogs whether to keep the shops' logs (their side of the story: the lost lock, the refused write) after
 * a run that succeeded; a failed run always keeps them
 * @param postgres the PostgreSQL server the demo creates its database on
 */
public record ProcessDemoSettings(@DefaultValue("2s") Duration lease, @DefaultValue("15s") Duration lockWait,
		@DefaultValue("120s") Duration startupTimeout,
		@DefaultValue({ "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1" }) List<String> jvmOptions,
		boolean keepLogs, @DefaultValue Postgres postgres) {

	/** Where the settings are read from. */
	public static final String PREFIX = "sample.demo.processes";

	/**
	 * The PostgreSQL server. Unset, the demo uses the one answering on 127.0.0.1:5432, else starts one embedded.
	 *
	 * @param url JDBC URL of an existing database on the server, through which the demo creates and drops its own,
	 * such as {@code jdbc:postgresql://db.example:5432/postgres}; a server named here that cannot be used fails
	 * the demo, it is never replaced by another
	 * @param username a user of that server who may create databases
	 * @param password that user's password
	 * @param embedded whether to start an embedded PostgreSQL even when one answers on 127.0.0.1:5432
	 */
	public record Postgres(String url, @DefaultValue("postgres") String username, String password,
			boolean embedded) {

		/** The password, empty when none is set. */
		public String passwordOrEmpty() {
			return (this.password != null) ? this.password : "";
		}

	}

}
