package io.ferry;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

/**
 * Loads ferry's native code: first from the JAR (io/ferry/native/linux-x86_64/, extracted to a
 * temporary folder), else libferry_java.so from java.library.path (System.loadLibrary), which
 * finds libferry through its RPATH or LD_LIBRARY_PATH. Then checks that the loaded library has
 * the ABI this JAR was built for (the same major, while 0.x the same minor too), and at least its
 * version.
 */
final class NativeLoader {
  private static final String RESOURCE_DIR = "/io/ferry/native/linux-x86_64/";
  private static boolean loaded;

  private NativeLoader() {}

  static synchronized void load() {
    if (loaded) return;
    String fromJar = null;
    try {
      fromJar = loadFromJar();
    } catch (IOException | UnsatisfiedLinkError e) {
      fromJar = "from the JAR failed: " + e.getMessage();
    }
    if (fromJar != null) {
      try {
        System.loadLibrary("ferry_java");
      } catch (UnsatisfiedLinkError e) {
        throw new UnsatisfiedLinkError("ferry: cannot load its native library. Tried: (1) "
            + RESOURCE_DIR + " in the JAR: " + fromJar + "; (2) libferry_java.so on java.library.path ("
            + System.getProperty("java.library.path") + "): " + e.getMessage()
            + ". Build the Java binding (cmake -DFERRY_BUILD_BINDINGS=ON) and put its folder on "
            + "-Djava.library.path, with " + soname() + " next to it or on LD_LIBRARY_PATH.");
      }
    }
    loaded = true;
    checkVersion();
  }

  /** Returns null when loaded from the JAR, else why not. */
  private static String loadFromJar() throws IOException {
    if (NativeLoader.class.getResource(RESOURCE_DIR + "libferry_java.so") == null) {
      return "no native library in the JAR";
    }
    File dir = Files.createTempDirectory("ferry-native").toFile();
    dir.deleteOnExit();
    File core = extract(dir, soname());
    File binding = extract(dir, "libferry_java.so");
    System.load(core.getAbsolutePath()); // by soname: libferry_java.so finds it loaded
    System.load(binding.getAbsolutePath());
    return null;
  }

  private static File extract(File dir, String name) throws IOException {
    File out = new File(dir, name);
    try (InputStream in = NativeLoader.class.getResourceAsStream(RESOURCE_DIR + name)) {
      if (in == null) throw new IOException(name + " is missing from the JAR");
      Files.copy(in, out.toPath(), StandardCopyOption.REPLACE_EXISTING);
    }
    out.deleteOnExit();
    return out;
  }

  /** libferry's soname: libferry.so.MAJOR, and while 0.x libferry.so.0.MINOR. */
  private static String soname() {
    int major = FerryConstants.FERRY_VERSION_MAJOR;
    return "libferry.so." + (major == 0 ? "0." + FerryConstants.FERRY_VERSION_MINOR : String.valueOf(major));
  }

  private static void checkVersion() {
    int built = FerryConstants.FERRY_VERSION_NUMBER;
    int found = FerryJNI.version();
    boolean sameAbi = found / 10000 == built / 10000 && (built >= 10000 || found / 100 == built / 100);
    if (!sameAbi || found < built) {
      String series = built >= 10000 ? (built / 10000) + ".x" : "0." + (built / 100) + ".x";
      throw new UnsatisfiedLinkError("ferry: the loaded libferry is version " + found
          + ", this JAR needs " + series + " at least " + built);
    }
  }
}
