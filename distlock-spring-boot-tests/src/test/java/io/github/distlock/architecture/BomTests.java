package io.github.distlock.architecture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code distlock-bom} manages every library module of the build, at the build's version, and nothing else: not the
 * sample, the benchmarks or the torture run, and no other project's artifact, so that importing it pins distlock's
 * versions only.
 */
public class BomTests {

	static final Path ROOT = Path.of("..");

	@Test
	void theBomManagesEveryLibraryModuleAtTheBuildsVersionAndNothingElse() throws Exception {
		Document build = read(ROOT.resolve("pom.xml"));
		Document bom = read(ROOT.resolve("distlock-bom/pom.xml"));

		List<String> libraries = libraryModules();
		assertThat(libraries).as("library modules of the build").hasSizeGreaterThan(5);

		Element managed = child(child(bom.getDocumentElement(), "dependencyManagement"), "dependencies");
		List<String> artifacts = new ArrayList<>();
		for (Element dependency : children(managed, "dependency")) {
			assertThat(text(dependency, "groupId")).isEqualTo("io.github.distlock");
			assertThat(text(dependency, "version")).isEqualTo("${project.version}");
			artifacts.add(text(dependency, "artifactId"));
		}
		assertThat(artifacts).containsExactlyInAnyOrderElementsOf(libraries);
		assertThat(text(bom.getDocumentElement(), "version")).as("the BOM's version")
			.isEqualTo(text(build.getDocumentElement(), "version"));
		assertThat(child(bom.getDocumentElement(), "parent")).as("a parent would hand its own management on").isNull();
	}

	/**
	 * The build's library modules, the ones published: every module but the BOM itself and those that skip the
	 * deploy (the sample, the harnesses, the test fixtures), as their own POMs say.
	 */
	public static List<String> libraryModules() throws Exception {
		List<String> libraries = new ArrayList<>();
		for (String module : texts(read(ROOT.resolve("pom.xml")).getDocumentElement(), "modules", "module")) {
			if (!module.equals("distlock-bom") && !skipsDeploy(read(ROOT.resolve(module).resolve("pom.xml")))) {
				libraries.add(module);
			}
		}
		return libraries;
	}

	private static boolean skipsDeploy(Document pom) {
		NodeList skips = pom.getDocumentElement().getElementsByTagName("maven.deploy.skip");
		return skips.getLength() > 0 && skips.item(0).getTextContent().strip().equals("true");
	}

	private static Document read(Path pom) throws Exception {
		return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
	}

	private static List<String> texts(Element parent, String list, String item) {
		return children(child(parent, list), item).stream().map(Node::getTextContent).map(String::strip).toList();
	}

	private static String text(Element parent, String name) {
		return child(parent, name).getTextContent().strip();
	}

	private static Element child(Element parent, String name) {
		List<Element> found = children(parent, name);
		return found.isEmpty() ? null : found.get(0);
	}

	/** Direct children only: a dependency's {@code version} is not the project's. */
	private static List<Element> children(Element parent, String name) {
		List<Element> found = new ArrayList<>();
		NodeList nodes = parent.getChildNodes();
		for (int i = 0; i < nodes.getLength(); i++) {
			if (nodes.item(i) instanceof Element element && element.getTagName().equals(name)) {
				found.add(element);
			}
		}
		return found;
	}

}
