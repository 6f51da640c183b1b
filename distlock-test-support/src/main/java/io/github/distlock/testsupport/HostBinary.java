package io.github.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A program a test runs as a real process (a server such as {@code etcd}, a tool such as {@code iptables}): the
 * machine's own when it has one, else the one in Debian's package, which the build fetches itself with
 * {@code apt-get download} and unpacks with {@code dpkg-deb -x} into {@code target/host-binaries} at the top of the
 * checkout (neither needs root; only a first {@code apt-get update} does, on a machine that never ran it). A fresh
 * clone thus needs nothing installed by hand. Where neither way works, the failure says what is missing and the one
 * command that provides it. Where each program came from is said once per JVM on standard error.
 *
 * @param path the program to run
 * @param environment what it needs in its environment: where its unpacked libraries and plugins are (empty for the
 * machine's own)
 * @param origin where it came from, for people
 */
public record HostBinary(Path path, Map<String, String> environment, String origin) {

	private static final Map<String, HostBinary> FOUND = new ConcurrentHashMap<>();

	private static final String LIBRARIES = "usr/lib/x86_64-linux-gnu";

	/**
	 * The program {@code name}: on the PATH or in {@code /usr/sbin}, {@code /usr/bin} or {@code /usr/local/bin}; else
	 * {@code packaged} (a path inside the unpacked packages, such as {@code usr/bin/etcd}) from Debian's
	 * {@code packages}, the first of which holds the program and the others the libraries it needs.
	 * @throws IllegalStateException saying what to install, when the program can be had neither way
	 */
	public static HostBinary of(String name, String packaged, String... packages) {
		return of(name, (machines) -> true, packaged, packages);
	}

	/**
	 * As {@link #of(String, String, String...)}, taking the machine's own program only if it is {@code newEnough} for
	 * the tests; Debian's package otherwise.
	 */
	public static HostBinary of(String name, Predicate<Path> newEnough, String packaged, String... packages) {
		return FOUND.computeIfAbsent(name, (missing) -> {
			HostBinary binary = onTheMachine(name);
			if (binary != null && !newEnough.test(binary.path())) {
				System.err.println("[distlock tests] " + name + ": the machine's " + binary.path()
						+ " is too old for the tests");
				binary = null;
			}
			if (binary == null) {
				binary = fromDebian(name, packaged, List.of(packages));
			}
			System.err.println("[distlock tests] " + name + ": " + binary.path() + " (" + binary.origin() + ")");
			return binary;
		});
	}

	/** A process of this program with these arguments, its environment set. */
	public ProcessBuilder processBuilder(List<String> arguments) {
		List<String> command = new ArrayList<>();
		command.add(this.path.toString());
		command.addAll(arguments);
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().putAll(this.environment);
		return builder;
	}

	private static @Nullable HostBinary onTheMachine(String name) {
		List<Path> candidates = new ArrayList<>();
		String path = System.getenv("PATH");
		if (path != null) {
			Arrays.stream(path.split(java.io.File.pathSeparator))
				.filter((directory) -> !directory.isEmpty())
				.forEach((directory) -> candidates.add(Path.of(directory, name)));
		}
		Stream.of("/usr/sbin", "/usr/bin", "/usr/local/bin").forEach((dir) -> candidates.add(Path.of(dir, name)));
		for (Path candidate : candidates) {
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return new HostBinary(candidate, Map.of(), "the machine's own");
			}
		}
		return null;
	}

	private static HostBinary fromDebian(String name, String packaged, List<String> packages) {
		Path root = checkoutTarget().resolve("host-binaries");
		Path unpacked = root.resolve(String.join("+", packages));
		Path program = unpacked.resolve(packaged);
		try {
			Files.createDirectories(root);
			// Modules' test JVMs may ask at once: one fetches, the others find it done.
			try (FileChannel lockFile = FileChannel.open(root.resolve(".lock"), StandardOpenOption.CREATE,
					StandardOpenOption.WRITE); FileLock held = lockFile.lock()) {
				if (!Files.isExecutable(program)) {
					fetch(packages, unpacked, name);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not unpack Debian's " + packages + " for " + name, ex);
		}
		if (!Files.isExecutable(program)) {
			throw missing(name, packages, "Debian's " + packages.get(0) + " has no " + packaged);
		}
		Path libraries = unpacked.resolve(LIBRARIES);
		return new HostBinary(program, Map.of("LD_LIBRARY_PATH", libraries.toString(), "XTABLES_LIBDIR",
				libraries.resolve("xtables").toString()), "Debian's " + String.join(", ", packages)
						+ ", fetched by the build into " + unpacked);
	}

	private static void fetch(List<String> packages, Path unpacked, String name) throws IOException {
		Path downloads = Files.createDirectories(unpacked.resolveSibling(unpacked.getFileName() + ".debs"));
		List<String> download = new ArrayList<>(List.of("apt-get", "download"));
		download.addAll(packages);
		Result fetched = run(download, downloads);
		if (!fetched.ok() && isRoot()) {
			// A machine that never read its package lists finds no package: read them once, then try again.
			run(List.of("apt-get", "update", "-qq"), downloads);
			fetched = run(download, downloads);
		}
		if (!fetched.ok()) {
			throw missing(name, packages, "apt-get download " + String.join(" ", packages) + " said: "
					+ fetched.output().strip());
		}
		try (Stream<Path> debs = Files.list(downloads)) {
			for (Path deb : debs.filter((file) -> file.toString().endsWith(".deb")).toList()) {
				Result unpackedOne = run(List.of("dpkg-deb", "-x", deb.toString(), unpacked.toString()), downloads);
				if (!unpackedOne.ok()) {
					throw missing(name, packages, "dpkg-deb -x " + deb.getFileName() + " said: "
							+ unpackedOne.output().strip());
				}
			}
		}
	}

	private static IllegalStateException missing(String name, List<String> packages, String why) {
		return new IllegalStateException("No " + name + " on this machine, and the build could not fetch it (" + why
				+ "). Install it with: apt-get install -y " + packages.get(0));
	}

	private static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	/** The {@code target} folder at the top of the checkout (the folder with {@code mvnw}), shared by every module. */
	private static Path checkoutTarget() {
		Path dir = Path.of("").toAbsolutePath();
		for (Path at = dir; at != null; at = at.getParent()) {
			if (Files.exists(at.resolve("mvnw"))) {
				return at.resolve("target");
			}
		}
		return dir.resolve("target");
	}

	private static Result run(List<String> command, Path directory) {
		try {
			Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
				.start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(5, TimeUnit.MINUTES)) {
				process.destroyForcibly();
				return new Result(false, String.join(" ", command) + " did not finish within 5 minutes");
			}
			return new Result(process.exitValue() == 0, output);
		}
		catch (IOException ex) {
			return new Result(false, ex.toString());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new Result(false, "interrupted");
		}
	}

	private record Result(boolean ok, String output) {
	}

}
