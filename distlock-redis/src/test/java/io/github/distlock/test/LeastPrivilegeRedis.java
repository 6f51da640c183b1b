package io.github.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A real Redis on which distlock connects as the least-privileged user of the section "Least-privilege Redis user" of
 * docs/operations.md, read from that page itself so that the documented ACL is the one tested, with {@code user default off}.
 * The fixture's own connections ({@link #client()}) authenticate as an administrator.
 */
public final class LeastPrivilegeRedis implements RedisServer {

	public static final String USER = "distlock";

	private static final String PASSWORD = "distlock-least-privilege";

	private static final String ADMIN = "fixture-admin";

	private static final String ADMIN_PASSWORD = "fixture-admin-password";

	/** The page that documents the ACL, from the top of the checkout. */
	public static final String ACL_PAGE = "docs/operations.md";

	/** The line of that page that grants the ACL, as users copy it. */
	private static final String ACL_COMMAND = "ACL SETUSER " + USER + " ";

	private final RedisProcess process;

	private List<String> rules;

	private LeastPrivilegeRedis(RedisProcess process, List<String> rules) {
		this.process = process;
		this.rules = rules;
		secure();
	}

	/** A server whose distlock user has exactly the documented ACL. */
	public static LeastPrivilegeRedis start() {
		return start(documentedRules());
	}

	/** A server whose distlock user has the given ACL rules (as {@code ACL SETUSER} takes them, password included). */
	public static LeastPrivilegeRedis start(List<String> rules) {
		return new LeastPrivilegeRedis(RedisServers.startProcess(), List.copyOf(rules));
	}

	/**
	 * The rules of the {@code ACL SETUSER distlock ...} line of {@value #ACL_PAGE}, its placeholder password replaced
	 * by the fixture's. Fails when the page has no such line: the documented ACL is what the build proves.
	 */
	public static List<String> documentedRules() {
		Path page = findAclPage();
		try {
			for (String line : Files.readAllLines(page)) {
				if (line.startsWith(ACL_COMMAND)) {
					List<String> rules = new ArrayList<>();
					for (String rule : line.substring(ACL_COMMAND.length()).trim().split("\\s+")) {
						rules.add(rule.startsWith(">") ? ">" + PASSWORD : rule);
					}
					return rules;
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		throw new IllegalStateException(page + " has no line starting with '" + ACL_COMMAND
				+ "': the page must document the ACL distlock needs");
	}

	/** The password the fixture gives the distlock user in place of the page's placeholder. */
	public static String documentedPassword() {
		return PASSWORD;
	}

	/** The project's {@value #ACL_PAGE}, found above the working directory. */
	public static Path findAclPage() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			Path page = dir.resolve(ACL_PAGE);
			if (Files.isRegularFile(page) && Files.isDirectory(dir.resolve("distlock-spring-boot-autoconfigure"))) {
				return page;
			}
		}
		throw new IllegalStateException("The project's " + ACL_PAGE + " was not found above "
				+ Path.of("").toAbsolutePath());
	}

	/** Gives the distlock user other rules, from a clean slate. */
	public void grant(List<String> rules) {
		this.rules = List.copyOf(rules);
		try (RespClient admin = client()) {
			setUser(admin, USER, this.rules);
		}
	}

	/** Creates the administrator and the distlock user, then turns the default user off. */
	private void secure() {
		try (RespClient open = this.process.client()) {
			setUser(open, ADMIN, List.of("on", ">" + ADMIN_PASSWORD, "~*", "&*", "+@all"));
			setUser(open, USER, this.rules);
			setUser(open, "default", List.of("off"));
		}
		try (RespClient anonymous = this.process.client()) {
			anonymous.call("PING");
			throw new IllegalStateException("The default user still answers on port " + port()
					+ ": the least-privilege fixture would prove nothing");
		}
		catch (RespClient.ErrorReply expected) {
			// NOAUTH: only named users get in.
		}
	}

	private static void setUser(RespClient client, String user, List<String> rules) {
		List<Object> command = new ArrayList<>(Arrays.asList("ACL", "SETUSER", user, "reset"));
		command.addAll(rules);
		client.call(command.toArray());
	}

	@Override
	public String host() {
		return this.process.host();
	}

	@Override
	public int port() {
		return this.process.port();
	}

	@Override
	public String username() {
		return USER;
	}

	@Override
	public String password() {
		return PASSWORD;
	}

	@Override
	public RespClient client() {
		RespClient client = this.process.client();
		client.call("AUTH", ADMIN, ADMIN_PASSWORD);
		return client;
	}

	@Override
	public void pause() {
		this.process.pause();
	}

	@Override
	public void resume() {
		this.process.resume();
	}

	@Override
	public void kill() {
		this.process.kill();
	}

	/** Restarts with an empty memory, which forgets users too: they are created again. */
	@Override
	public void restart() {
		this.process.restart();
		secure();
	}

	@Override
	public void close() {
		this.process.close();
	}

}
