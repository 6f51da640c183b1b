package io.github.distlock.sample.demo.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The two-process demo run as a user runs it, {@code java -jar distlock-sample-app.jar --demo=two-processes}, as a
 * process of its own; with every process it starts remembered (by watching its descendants while it runs), so that a
 * test can check none is left afterwards.
 */
final class DemoProcess implements AutoCloseable {

	private static final Pattern DATABASE = Pattern.compile("database (distlock_demo_[0-9a-f]+)");

	private final Process process;

	private final Path output;

	private final Set<ProcessHandle> started = ConcurrentHashMap.newKeySet();

	private final Thread watcher;

	private DemoProcess(Process process, Path output) {
		this.process = process;
		this.output = output;
		this.watcher = new Thread(this::watch, "demo-descendants");
		this.watcher.setDaemon(true);
		this.watcher.start();
	}

	/** Starts the packaged sample, named by the build in {@code sample.jar}, with the demo's argument and these. */
	static DemoProcess start(Path dir, String... settings) {
		Path jar = Path.of(System.getProperty("sample.jar", "(sample.jar not set)"));
		assertThat(jar).as("the packaged sample, named by the build in sample.jar").isRegularFile();
		// Its temporary files (the shops' logs, which a demo that is stopped keeps) go where JUnit cleans up.
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
			.toString(), "-Djava.io.tmpdir=" + dir, "-jar", jar.toString(), TwoProcessDemo.ARGUMENT));
		command.addAll(List.of(settings));
		Path output = dir.resolve("demo.out");
		try {
			return new DemoProcess(
					new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start(),
					output);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void watch() {
		while (this.process.isAlive()) {
			this.process.descendants().forEach(this.started::add);
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/** Waits until the demo has printed the text, failing with its output if it exits first or takes too long. */
	void awaitOutput(String text, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!output().contains(text)) {
			if (!this.process.isAlive()) {
				fail("The demo exited with %d before it printed '%s':%n%s", this.process.exitValue(), text, output());
			}
			if (System.nanoTime() > deadline) {
				fail("The demo did not print '%s' within %s:%n%s", text, timeout, output());
			}
			Thread.sleep(100);
		}
	}

	/** Waits for the demo to exit and returns its exit status. */
	int awaitExit(Duration timeout) throws InterruptedException {
		if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			fail("The demo did not end within %s:%n%s", timeout, output());
		}
		this.watcher.join(5_000);
		return this.process.exitValue();
	}

	/** SIGTERM, as Ctrl-C or a process manager stops it. */
	void terminate() {
		this.process.destroy();
	}

	/** Every process the demo started that was seen while it ran. */
	Set<ProcessHandle> started() {
		return Set.copyOf(this.started);
	}

	/** The process ids of the started processes that are stopped (SIGSTOP), from {@code /proc}. */
	List<Long> stopped() {
		List<Long> stopped = new ArrayList<>();
		for (ProcessHandle handle : this.started) {
			try {
				String stat = Files.readString(Path.of("/proc", String.valueOf(handle.pid()), "stat"));
				// pid (comm) state ...: the state follows the last closing parenthesis.
				if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("T")) {
					stopped.add(handle.pid());
				}
			}
			catch (IOException ex) {
				// Gone meanwhile.
			}
		}
		return stopped;
	}

	/** The database the demo said it created. */
	String database() {
		Matcher matcher = DATABASE.matcher(output());
		assertThat(matcher.find()).as("the demo names its database:%n%s", output()).isTrue();
		return matcher.group(1);
	}

	/** The printed table: each scenario's row, by name, as its numbers (sold, stock, oversold, stale writes refused). */
	Map<String, List<Integer>> table() {
		Map<String, List<Integer>> rows = new LinkedHashMap<>();
		for (String line : output().lines().toList()) {
			String[] cells = line.split("\\|");
			boolean row = line.startsWith("| ") && cells.length == 6 && cells[2].strip().matches("\\d+");
			if (row) {
				List<Integer> numbers = new ArrayList<>();
				for (int i = 2; i < cells.length; i++) {
					numbers.add(Integer.valueOf(cells[i].strip()));
				}
				rows.put(cells[1].strip(), numbers);
			}
		}
		return rows;
	}

	String output() {
		try {
			return Files.readString(this.output);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Makes sure nothing is left running, whatever the test found. */
	@Override
	public void close() throws InterruptedException {
		this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		this.watcher.interrupt();
		for (ProcessHandle handle : this.started) {
			// A stopped process is killed as well: SIGKILL needs no SIGCONT.
			handle.destroyForcibly();
		}
	}

}
