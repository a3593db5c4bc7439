package io.ferry;

/**
 * A ferry error: one subclass per ferry status, each carrying ferry's message (it names the
 * argument and the value). Unchecked, like IllegalArgumentException.
 */
public class FerryException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final Status status;

  public FerryException(Status status, String message) {
    super(status.name() + ": " + message);
    this.status = status;
  }

  /** The ferry status of this error. */
  public Status status() { return status; }

  /**
   * The same error, its message led by {@code where} (which batch of a loop): ferry's own message names only the
   * argument of that one call.
   */
  FerryException within(String where) {
    return fromStatus(status.swigValue(), where + ": " + getMessage().substring(status.name().length() + 2));
  }

  /** Called from the native code: the exception class for a status. */
  static FerryException fromStatus(int code, String message) {
    Status status = Status.swigToEnum(code);
    switch (status) {
      case ERR_INVALID_ARGUMENT: return new InvalidArgument(message);
      case ERR_INVALID_HANDLE: return new InvalidHandle(message);
      case ERR_STRUCT_SIZE: return new StructSize(message);
      case ERR_UNSUPPORTED: return new Unsupported(message);
      case ERR_OVERFLOW: return new Overflow(message);
      case ERR_OUT_OF_RANGE: return new OutOfRange(message);
      case ERR_OUT_OF_MEMORY: return new OutOfMemory(message);
      case ERR_NO_DEVICE: return new NoDevice(message);
      case ERR_CUDA: return new Cuda(message);
      case ERR_NOT_FOUND: return new NotFound(message);
      case ERR_ALREADY_EXISTS: return new AlreadyExists(message);
      case ERR_NOT_READY: return new NotReady(message);
      case ERR_BUSY: return new Busy(message);
      case ERR_SOURCE_TOO_SMALL: return new SourceTooSmall(message);
      case ERR_OUTPUT_TOO_SMALL: return new OutputTooSmall(message);
      default: return new Internal(message);
    }
  }

  /** A null, a zero or negative size, a bad value. */
  public static class InvalidArgument extends FerryException {
    private static final long serialVersionUID = 1L;
    public InvalidArgument(String m) { super(Status.ERR_INVALID_ARGUMENT, m); }
  }
  /** A closed, released or foreign handle. */
  public static class InvalidHandle extends FerryException {
    private static final long serialVersionUID = 1L;
    public InvalidHandle(String m) { super(Status.ERR_INVALID_HANDLE, m); }
  }
  public static class StructSize extends FerryException {
    private static final long serialVersionUID = 1L;
    public StructSize(String m) { super(Status.ERR_STRUCT_SIZE, m); }
  }
  /** An unknown enum value or an unsupported combination. */
  public static class Unsupported extends FerryException {
    private static final long serialVersionUID = 1L;
    public Unsupported(String m) { super(Status.ERR_UNSUPPORTED, m); }
  }
  public static class Overflow extends FerryException {
    private static final long serialVersionUID = 1L;
    public Overflow(String m) { super(Status.ERR_OVERFLOW, m); }
  }
  public static class OutOfRange extends FerryException {
    private static final long serialVersionUID = 1L;
    public OutOfRange(String m) { super(Status.ERR_OUT_OF_RANGE, m); }
  }
  public static class OutOfMemory extends FerryException {
    private static final long serialVersionUID = 1L;
    public OutOfMemory(String m) { super(Status.ERR_OUT_OF_MEMORY, m); }
  }
  /** A CUDA device was asked for: no driver or no such GPU. */
  public static class NoDevice extends FerryException {
    private static final long serialVersionUID = 1L;
    public NoDevice(String m) { super(Status.ERR_NO_DEVICE, m); }
  }
  public static class Cuda extends FerryException {
    private static final long serialVersionUID = 1L;
    public Cuda(String m) { super(Status.ERR_CUDA, m); }
  }
  public static class NotFound extends FerryException {
    private static final long serialVersionUID = 1L;
    public NotFound(String m) { super(Status.ERR_NOT_FOUND, m); }
  }
  public static class AlreadyExists extends FerryException {
    private static final long serialVersionUID = 1L;
    public AlreadyExists(String m) { super(Status.ERR_ALREADY_EXISTS, m); }
  }
  public static class NotReady extends FerryException {
    private static final long serialVersionUID = 1L;
    public NotReady(String m) { super(Status.ERR_NOT_READY, m); }
  }
  public static class Busy extends FerryException {
    private static final long serialVersionUID = 1L;
    public Busy(String m) { super(Status.ERR_BUSY, m); }
  }
  /** A source buffer smaller than its shape and strides reach. */
  public static class SourceTooSmall extends FerryException {
    private static final long serialVersionUID = 1L;
    public SourceTooSmall(String m) { super(Status.ERR_SOURCE_TOO_SMALL, m); }
  }
  /** An output buffer smaller than its shape and strides reach. */
  public static class OutputTooSmall extends FerryException {
    private static final long serialVersionUID = 1L;
    public OutputTooSmall(String m) { super(Status.ERR_OUTPUT_TOO_SMALL, m); }
  }
  /** A bug in ferry: please report the message. */
  public static class Internal extends FerryException {
    private static final long serialVersionUID = 1L;
    public Internal(String m) { super(Status.ERR_INTERNAL, m); }
  }
}
