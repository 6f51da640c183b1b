package io.github.distlock.autoconfigure.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The project's Markdown pages as the drift tests read them: their tables, their backticked values and their Java
 * blocks, each with the line it starts on, so that a failure names the line to fix.
 */
public final class DocPages {

	private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");

	private DocPages() {
	}

	/** The top of the checkout: the directory above this module that has the README and the docs. */
	public static Path root() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))
					&& Files.isDirectory(dir.resolve("distlock-core"))) {
				return dir;
			}
		}
		throw new IllegalStateException("No checkout with README.md and docs/ above " + Path.of("").toAbsolutePath());
	}

	/** A page by its path from the top of the checkout, such as {@code docs/properties.md}. */
	public static Page page(String path) {
		return new Page(path, lines(root().resolve(path)));
	}

	/** Every page users read: the README, the docs, the contributing guide and each module's README. */
	public static List<Page> allPages() {
		Path root = root();
		List<Page> pages = new ArrayList<>();
		for (String top : List.of("README.md", "CONTRIBUTING.md", "BENCHMARKS.md")) {
			if (Files.isRegularFile(root.resolve(top))) {
				pages.add(page(top));
			}
		}
		try (Stream<Path> docs = Files.list(root.resolve("docs"));
				Stream<Path> modules = Files.list(root)) {
			docs.filter((path) -> path.toString().endsWith(".md"))
				.sorted()
				.forEach((path) -> pages.add(page(root.relativize(path).toString())));
			modules.filter((dir) -> dir.getFileName().toString().startsWith("distlock-"))
				.map((dir) -> dir.resolve("README.md"))
				.filter(Files::isRegularFile)
				.sorted()
				.forEach((path) -> pages.add(page(root.relativize(path).toString())));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return pages;
	}

	/** The values written between backticks in a table cell, in order. */
	public static List<String> backticked(String text) {
		List<String> values = new ArrayList<>();
		Matcher matcher = BACKTICKED.matcher(text);
		while (matcher.find()) {
			values.add(matcher.group(1));
		}
		return values;
	}

	static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** One Markdown page. */
	public record Page(String path, List<String> lines) {

		/**
		 * The body rows of every table on the page whose header row starts with the given cell, such as
		 * {@code property}.
		 */
		public List<Row> tableRows(String firstHeaderCell) {
			List<Row> rows = new ArrayList<>();
			for (int i = 0; i + 1 < this.lines.size(); i++) {
				List<String> header = cells(this.lines.get(i));
				if (!header.isEmpty() && header.get(0).equals(firstHeaderCell)
						&& this.lines.get(i + 1).trim().startsWith("|---")) {
					for (int j = i + 2; j < this.lines.size() && this.lines.get(j).trim().startsWith("|"); j++) {
						rows.add(new Row(this.path, j + 1, cells(this.lines.get(j))));
					}
				}
			}
			return rows;
		}

		/** Every fenced {@code java} block, with the source it names in a comment just above it, if any. */
		List<JavaBlock> javaBlocks() {
			return blocks("java");
		}

		/** Every fenced {@code kotlin} block, with the source it names in a comment just above it, if any. */
		List<JavaBlock> kotlinBlocks() {
			return blocks("kotlin");
		}

		private List<JavaBlock> blocks(String language) {
			List<JavaBlock> blocks = new ArrayList<>();
			for (int i = 0; i < this.lines.size(); i++) {
				if (this.lines.get(i).trim().equals("```" + language)) {
					String comment = (i > 0) ? this.lines.get(i - 1).trim() : "";
					Matcher matcher = JavaBlock.SOURCE.matcher(comment);
					String source = matcher.matches() ? matcher.group(1) : null;
					List<String> code = new ArrayList<>();
					int j = i + 1;
					while (j < this.lines.size() && !this.lines.get(j).trim().equals("```")) {
						code.add(this.lines.get(j));
						j++;
					}
					blocks.add(new JavaBlock(this.path, i + 1, source, code, comment.equals(JavaBlock.BUILD_SCRIPT)));
					i = j;
				}
			}
			return blocks;
		}

		private static List<String> cells(String line) {
			String trimmed = line.trim();
			if (!trimmed.startsWith("|") || !trimmed.endsWith("|") || trimmed.length() < 2) {
				return List.of();
			}
			List<String> cells = new ArrayList<>();
			// A cell may hold an escaped pipe (\|) inside backticks, as the Redis key table does.
			for (String cell : trimmed.substring(1, trimmed.length() - 1).split("(?<!\\\\)\\|", -1)) {
				cells.add(cell.trim());
			}
			return cells;
		}

	}

	/** A table row: its page, its line (from 1) and its cells. */
	public record Row(String page, int line, List<String> cells) {

		public String cell(int index) {
			return (index < this.cells.size()) ? this.cells.get(index) : "";
		}

		public String where() {
			return this.page + ":" + this.line;
		}

	}

	/**
	 * A {@code java} or {@code kotlin} block of a page, with the source file it is taken from, or marked as a Gradle
	 * build script ({@value #BUILD_SCRIPT} just above it), which no module compiles.
	 */
	record JavaBlock(String page, int line, String source, List<String> code, boolean buildScript) {

		static final Pattern SOURCE = Pattern.compile("<!--\\s*source:\\s*(\\S+)\\s*-->");

		static final String BUILD_SCRIPT = "<!-- build.gradle.kts -->";

		public String where() {
			return this.page + ":" + this.line;
		}

	}

}
