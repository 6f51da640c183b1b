package io.github.distlock.torture.history;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Record files written line by line read back whole, a torn last line (a writer killed mid-line) dropped.
 */
class HistoryFilesTests {

	@TempDir
	Path dir;

	@Test
	void linesWrittenReadBackAndATornLastLineIsDropped() throws Exception {
		Path file = this.dir.resolve("history.log");
		try (HistoryWriter writer = new HistoryWriter(file)) {
			writer.write(HistoryLine.of("acquired").with("worker", "w1").with("token", 17));
			writer.write(HistoryLine.of("released").with("worker", "w1").with("token", 17));
		}
		Files.writeString(file, "acquired worker=w1 tok", StandardOpenOption.APPEND);
		assertThat(HistoryFiles.read(file)).extracting(HistoryLine::event).containsExactly("acquired", "released");
		assertThat(HistoryFiles.read(file).get(1).number("token")).isEqualTo(17);
	}

	@Test
	void aValueWithASpaceIsRefusedRatherThanWrittenAmbiguously() {
		assertThatIllegalArgumentException().isThrownBy(() -> HistoryLine.of("failed").with("error", "two words"));
	}

}
