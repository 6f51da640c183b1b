package io.github.distlock.torture.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that starts a main class of this JVM's class path in a JVM of its own: the workers and the
 * ZooKeeper server run from the class path the run itself was started with (the jar's manifest, or the test class
 * path), with the Java this run uses.
 */
final class JavaCommand {

	/** Small-machine flags for every child JVM: two cores are shared by all of them and the run itself. */
	private static final List<String> SMALL_MACHINE = List.of("-XX:+UseSerialGC",
			// C2 compiler threads would compete with the run itself for the two cores; C1 code is fast enough.
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

	private JavaCommand() {
	}

	/** The options of a child JVM: its heap, the small-machine flags, and any more. */
	static List<String> options(String maxHeap, String... more) {
		List<String> options = new ArrayList<>();
		options.add("-Xmx" + maxHeap);
		options.addAll(SMALL_MACHINE);
		options.addAll(List.of(more));
		return options;
	}

	static List<String> of(List<String> jvmOptions, String mainClass, List<String> arguments) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmOptions);
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(mainClass);
		command.addAll(arguments);
		return command;
	}

}
