package io.ferry;

/** Run without the native library: prints the loader's error and exits 0 (checked by CTest). */
public final class MissingLibraryMain {
  private MissingLibraryMain() {}

  public static void main(String[] args) {
    try {
      Ferry.version();
      System.out.println("unexpected: the native library loaded");
      System.exit(1);
    } catch (UnsatisfiedLinkError e) {
      System.out.println(e.getMessage());
    }
  }
}
