/**
 * What people of each common occupation write about their work: job titles with the
 * descriptions that fit them, skills, certifications and the name of the occupation's usual
 * course. A nurse's descriptions are not a welder's, so that a keyword search ("intensive
 * care", "welding", "accounting") finds the people it should. Plain professional phrases only:
 * no person, no place a person could be found at.
 */

export interface Certification {
  readonly name: string;
  readonly institution: string;
}

/** One kind of job of an occupation: its title and the sentences that may open its description. */
export interface JobKind {
  readonly role: string;
  readonly lines: readonly string[];
}

export interface Profession {
  readonly jobs: readonly JobKind[];
  /** sentences any job of the occupation may add after its opening line */
  readonly extras: readonly string[];
  readonly skills: readonly string[];
  readonly certifications: readonly Certification[];
  /** the subject named in vocational and associate course names of the occupation's usual major */
  readonly vocationalCourse?: string;
}

const BLS: Certification = { name: 'Basic Life Support (BLS)', institution: 'American Heart Association' };
const ACLS: Certification = {
  name: 'Advanced Cardiovascular Life Support (ACLS)',
  institution: 'American Heart Association',
};
const IPC: Certification = {
  name: 'Infection Prevention and Control',
  institution: 'World Health Organization online course',
};
const PFA: Certification = { name: 'Psychological First Aid', institution: 'Red Cross Red Crescent' };
const FOOD_SAFETY: Certification = { name: 'Food Safety Level 2', institution: 'Hospitality Training Institute' };
const SITE_SAFETY: Certification = {
  name: 'Workplace Safety Card',
  institution: 'Construction Industry Training Board',
};
const NEBOSH: Certification = {
  name: 'International General Certificate in Occupational Health and Safety',
  institution: 'NEBOSH',
};
const PMP: Certification = {
  name: 'Project Management Professional (PMP)',
  institution: 'Project Management Institute',
};
const MOS: Certification = { name: 'Microsoft Office Specialist: Excel', institution: 'Microsoft' };
const FIRST_AID: Certification = { name: 'First Aid at Work', institution: 'Red Crescent Society' };

/** Professions of the common occupations (vocabulary.ts COMMON_OCCUPATIONS), by ISCO-08 code. */
export const PROFESSIONS: Readonly<Record<string, Profession>> = {
  '2211': {
    jobs: [
      {
        role: 'General practitioner',
        lines: [
          'Ran a primary care practice seeing thirty to forty patients a day, from chronic disease follow-up to minor surgery.',
          'Diagnosed and treated common illnesses and managed long-term conditions such as diabetes and hypertension.',
        ],
      },
      {
        role: 'Emergency physician',
        lines: [
          'Assessed and stabilised patients in a busy emergency department, including trauma and cardiac emergencies.',
          'Led resuscitations and admitted critically ill patients to the wards or to intensive care.',
        ],
      },
      {
        role: 'Resident doctor in internal medicine',
        lines: [
          'Rotated through internal medicine, paediatrics and surgery during residency.',
          'Took admissions, wrote treatment plans and presented patients at the daily ward round.',
        ],
      },
    ],
    extras: [
      'Worked night and weekend on-call shifts.',
      'Supervised medical students and junior doctors.',
      'Treated patients in a mobile clinic for displaced families.',
    ],
    skills: ['Clinical diagnosis', 'Emergency medicine', 'Chronic disease management', 'Prescribing', 'Minor surgery'],
    certifications: [
      ACLS,
      { name: 'Advanced Trauma Life Support (ATLS)', institution: 'American College of Surgeons' },
      IPC,
    ],
  },
  '2212': {
    jobs: [
      {
        role: 'Internal medicine specialist',
        lines: [
          'Managed adult inpatients with complex cardiac, renal and respiratory conditions.',
          'Ran a weekly outpatient clinic for patients with heart failure and diabetes.',
        ],
      },
      {
        role: 'Paediatrician',
        lines: [
          'Treated children on the paediatric ward and premature babies in the neonatal intensive care unit.',
          'Ran vaccination and child growth clinics.',
        ],
      },
      {
        role: 'Anaesthesiologist',
        lines: [
          'Gave general and regional anaesthesia for elective and emergency surgery.',
          'Managed ventilated patients in the surgical intensive care unit.',
        ],
      },
      {
        role: 'General surgeon',
        lines: [
          'Performed general and trauma surgery, including laparoscopic procedures.',
          'Operated on war-wounded patients in a field hospital.',
        ],
      },
    ],
    extras: ['Taught residents and took part in clinical audit.', 'Was on call for the hospital every fourth night.'],
    skills: ['Internal medicine', 'Paediatrics', 'Anaesthesia', 'Intensive care', 'Surgery', 'Ultrasound'],
    certifications: [
      ACLS,
      { name: 'Pediatric Advanced Life Support (PALS)', institution: 'American Heart Association' },
      { name: 'Specialty board certificate', institution: 'Arab Board of Health Specializations' },
    ],
  },
  '2221': {
    jobs: [
      {
        role: 'Staff nurse',
        lines: [
          'Cared for up to eight patients per shift on a medical-surgical ward.',
          'Gave medications, dressed wounds and monitored patients after surgery.',
        ],
      },
      {
        role: 'Intensive care nurse',
        lines: [
          'Cared for ventilated and critically ill patients in a twelve-bed intensive care unit.',
          'Monitored vital signs, managed infusions and central lines, and assisted with intubation in intensive care.',
        ],
      },
      {
        role: 'Emergency nurse',
        lines: [
          'Triaged patients in the emergency department and assisted in resuscitation.',
          'Treated trauma and burns patients and prepared them for surgery.',
        ],
      },
      {
        role: 'Community health nurse',
        lines: [
          'Ran vaccination sessions and antenatal check-ups in a primary health care centre.',
          'Visited families at home to follow up chronic illness and child nutrition.',
        ],
      },
    ],
    extras: [
      'Trained and supervised newly qualified nurses.',
      'Kept patient records and gave the handover at each shift change.',
      'Worked twelve-hour day and night shifts.',
      'Led infection prevention and control on the ward.',
    ],
    skills: [
      'Patient care',
      'Wound care',
      'Medication administration',
      'Triage',
      'Intensive care nursing',
      'Infection control',
      'Electronic health records',
    ],
    certifications: [
      BLS,
      ACLS,
      { name: 'Critical Care Nursing Certificate', institution: 'Ministry of Health' },
      { name: 'Emergency Nursing Certificate', institution: 'Ministry of Health' },
      IPC,
    ],
    vocationalCourse: 'Nursing',
  },
  '2222': {
    jobs: [
      {
        role: 'Midwife',
        lines: [
          'Attended normal deliveries and monitored mothers and newborns on a maternity ward.',
          'Recognised complications in labour and referred them to the obstetrician.',
        ],
      },
      {
        role: 'Community midwife',
        lines: [
          'Ran antenatal and postnatal clinics and family planning counselling.',
          'Visited new mothers at home in an informal settlement.',
        ],
      },
    ],
    extras: ['Taught breastfeeding and newborn care classes.', 'Kept delivery records and birth registers.'],
    skills: [
      'Antenatal care',
      'Normal delivery',
      'Newborn care',
      'Family planning counselling',
      'Neonatal resuscitation',
    ],
    certifications: [
      { name: 'Helping Babies Breathe', institution: 'American Academy of Pediatrics' },
      { name: 'Emergency Obstetric and Newborn Care', institution: 'UNFPA' },
      BLS,
    ],
    vocationalCourse: 'Midwifery',
  },
  '3221': {
    jobs: [
      {
        role: 'Nursing assistant',
        lines: [
          'Helped patients with washing, meals and moving on a general ward.',
          'Measured vital signs and reported changes to the nurse in charge.',
        ],
      },
      {
        role: 'Practical nurse',
        lines: [
          'Gave oral medications and simple wound dressings under a registered nurse.',
          'Prepared patients for examinations and kept the ward stocked.',
        ],
      },
    ],
    extras: ['Worked rotating shifts, nights included.', 'Cared for elderly patients living with dementia.'],
    skills: ['Patient care', 'Vital signs', 'Patient hygiene', 'Mobility assistance', 'Wound dressing'],
    certifications: [BLS, IPC, { name: 'Nursing Assistant Training', institution: 'Ministry of Health' }],
    vocationalCourse: 'Practical Nursing',
  },
  '2262': {
    jobs: [
      {
        role: 'Community pharmacist',
        lines: [
          'Dispensed prescriptions and advised customers on medicines in a busy retail pharmacy.',
          'Managed stock, expiry dates and the controlled drugs register.',
        ],
      },
      {
        role: 'Hospital pharmacist',
        lines: [
          'Checked prescriptions on the wards and prepared intravenous medicines.',
          'Advised doctors on dosing, drug interactions and the choice of antibiotics.',
        ],
      },
    ],
    extras: ['Supervised two pharmacy technicians.', 'Ran the cold chain for vaccines.'],
    skills: ['Dispensing', 'Pharmacology', 'Drug interactions', 'Inventory management', 'Patient counselling'],
    certifications: [
      { name: 'Good Pharmacy Practice', institution: 'International Pharmaceutical Federation' },
      { name: 'Pharmacy practice licence', institution: 'Ministry of Health' },
    ],
  },
  '2261': {
    jobs: [
      {
        role: 'Dentist',
        lines: [
          'Provided fillings, extractions, root canal treatment and crowns in a private dental clinic.',
          'Took and read dental X-rays and planned treatment with patients.',
        ],
      },
      {
        role: 'Dental surgeon',
        lines: [
          'Performed surgical extractions and minor oral surgery.',
          'Treated dental emergencies in a humanitarian health centre.',
        ],
      },
    ],
    extras: ['Ran oral health sessions in schools.', 'Sterilised instruments to infection control standards.'],
    skills: ['Restorative dentistry', 'Endodontics', 'Oral surgery', 'Dental radiography', 'Infection control'],
    certifications: [
      { name: 'Dental practice licence', institution: 'Ministry of Health' },
      { name: 'Dental Implantology Course', institution: 'Faculty of Dentistry continuing education' },
    ],
  },
  '3212': {
    jobs: [
      {
        role: 'Medical laboratory technician',
        lines: [
          'Ran blood counts, chemistry panels and urine tests in a hospital laboratory.',
          'Calibrated analysers and ran daily quality control.',
        ],
      },
      {
        role: 'Microbiology technician',
        lines: [
          'Cultured samples and ran antibiotic sensitivity tests.',
          'Tested samples for tuberculosis and cholera in a public health laboratory.',
        ],
      },
    ],
    extras: ['Took blood samples from patients.', 'Recorded results in the laboratory information system.'],
    skills: ['Haematology', 'Clinical chemistry', 'Microbiology', 'Phlebotomy', 'Laboratory quality control'],
    certifications: [
      { name: 'Laboratory Biosafety', institution: 'World Health Organization online course' },
      { name: 'Phlebotomy Certificate', institution: 'Ministry of Health' },
    ],
    vocationalCourse: 'Medical Laboratory Technology',
  },
  '2264': {
    jobs: [
      {
        role: 'Physiotherapist',
        lines: [
          'Treated patients after strokes, fractures and surgery on the wards and in outpatients.',
          'Designed exercise programmes and taught patients to use walking aids.',
        ],
      },
      {
        role: 'Rehabilitation physiotherapist',
        lines: [
          'Worked with amputees and people with spinal cord injuries in a rehabilitation centre.',
          'Fitted patients with wheelchairs and trained their families.',
        ],
      },
    ],
    extras: ['Ran group exercise classes for older patients.'],
    skills: ['Musculoskeletal therapy', 'Neurological rehabilitation', 'Manual therapy', 'Exercise prescription'],
    certifications: [
      { name: 'Physical Rehabilitation in Emergencies', institution: 'Humanity and Inclusion' },
      { name: 'Dry Needling Course', institution: 'Physiotherapy association continuing education' },
    ],
    vocationalCourse: 'Physiotherapy Assistance',
  },
  '5321': {
    jobs: [
      {
        role: 'Care worker',
        lines: [
          'Supported elderly residents with washing, dressing, meals and medication reminders in a care home.',
          'Helped residents living with dementia keep a daily routine.',
        ],
      },
      {
        role: 'Home care aide',
        lines: [
          'Visited disabled adults at home to help with personal care and shopping.',
          'Cared for a bedridden patient and kept a daily care log for the family doctor.',
        ],
      },
    ],
    extras: ['Worked early, late and night shifts.'],
    skills: ['Personal care', 'Dementia care', 'Safe moving and handling', 'Meal preparation'],
    certifications: [{ name: 'Care Certificate', institution: 'Skills for Care' }, FIRST_AID],
    vocationalCourse: 'Health and Social Care',
  },
  '2512': {
    jobs: [
      {
        role: 'Software developer',
        lines: [
          'Built and maintained web applications in TypeScript and Node.js for business customers.',
          'Designed REST APIs and relational database schemas, and wrote automated tests.',
        ],
      },
      {
        role: 'Backend developer',
        lines: [
          'Developed services in Java and Spring and deployed them with Docker.',
          'Made slow SQL queries of a reporting system fast.',
        ],
      },
      {
        role: 'Mobile developer',
        lines: [
          'Built Android and iOS apps with Flutter for a delivery start-up.',
          'Published app updates every two weeks and fixed crashes reported by users.',
        ],
      },
    ],
    extras: ['Worked remotely with a distributed team using Git and code review.', 'Mentored two junior developers.'],
    skills: ['JavaScript', 'TypeScript', 'Java', 'Python', 'SQL databases', 'Git', 'Docker', 'React'],
    certifications: [
      { name: 'AWS Certified Cloud Practitioner', institution: 'Amazon Web Services' },
      { name: 'Oracle Certified Professional: Java SE Developer', institution: 'Oracle' },
      { name: 'Full-Stack Web Development Bootcamp', institution: 'Refugee Code Academy' },
    ],
  },
  '2513': {
    jobs: [
      {
        role: 'Web developer',
        lines: [
          'Built responsive websites in HTML, CSS and JavaScript for small businesses.',
          'Developed WordPress themes and online shops.',
        ],
      },
      {
        role: 'Front-end developer',
        lines: [
          'Built single-page applications in React and connected them to REST APIs.',
          'Turned designs into accessible, fast web pages.',
        ],
      },
    ],
    extras: ['Worked freelance for clients abroad through online platforms.'],
    skills: ['HTML and CSS', 'JavaScript', 'React', 'WordPress', 'PHP', 'Web accessibility'],
    certifications: [
      { name: 'Responsive Web Design', institution: 'freeCodeCamp' },
      { name: 'Meta Front-End Developer', institution: 'Coursera' },
    ],
  },
  '2514': {
    jobs: [
      {
        role: 'Applications programmer',
        lines: [
          'Wrote and maintained desktop applications in C# and .NET for an accounting firm.',
          'Fixed bugs reported by users and released monthly updates.',
        ],
      },
      {
        role: 'ERP developer',
        lines: [
          'Customised an ERP system and wrote reports for finance and warehouse staff.',
          'Migrated data from spreadsheets into the new system.',
        ],
      },
    ],
    extras: ['Trained users on new features.'],
    skills: ['C#', '.NET', 'SQL Server', 'Reporting', 'Data migration'],
    certifications: [{ name: 'Microsoft Certified: Azure Developer Associate', institution: 'Microsoft' }],
  },
  '2523': {
    jobs: [
      {
        role: 'Network engineer',
        lines: [
          'Designed and maintained the network and firewalls of a company with five branches.',
          'Configured Cisco routers and switches and monitored the network around the clock.',
        ],
      },
      {
        role: 'IT support engineer',
        lines: [
          'Supported two hundred users, set up laptops and managed user accounts.',
          'Ran backups and restored servers after failures.',
        ],
      },
    ],
    extras: ['Set up satellite internet links for field offices.'],
    skills: ['Network administration', 'Cisco routing and switching', 'Firewalls', 'Linux', 'Windows Server'],
    certifications: [
      { name: 'CCNA', institution: 'Cisco Networking Academy' },
      { name: 'CompTIA Network+', institution: 'CompTIA' },
    ],
  },
  '2166': {
    jobs: [
      {
        role: 'Graphic designer',
        lines: [
          'Designed logos, brochures and social media campaigns for local businesses.',
          'Prepared print-ready files and worked with printers on colour and paper.',
        ],
      },
      {
        role: 'UI designer',
        lines: [
          'Designed app screens and clickable prototypes in Figma.',
          'Ran usability tests and turned the findings into better designs.',
        ],
      },
    ],
    extras: ['Kept brand guidelines for several clients.'],
    skills: ['Adobe Photoshop', 'Adobe Illustrator', 'Figma', 'Typography', 'Branding'],
    certifications: [
      { name: 'Adobe Certified Professional', institution: 'Adobe' },
      { name: 'Google UX Design Certificate', institution: 'Coursera' },
    ],
  },
  '2142': {
    jobs: [
      {
        role: 'Site engineer',
        lines: [
          'Supervised the construction of residential buildings and checked the work against the drawings.',
          'Managed subcontractors, site safety and daily progress reports.',
        ],
      },
      {
        role: 'Structural engineer',
        lines: [
          'Designed reinforced concrete structures and checked them with structural analysis software.',
          'Inspected war-damaged buildings and designed their repair.',
        ],
      },
      {
        role: 'Road engineer',
        lines: [
          'Supervised road and drainage works for the municipality.',
          "Tested soil and asphalt and approved the contractor's work.",
        ],
      },
    ],
    extras: ['Prepared bills of quantities and cost estimates.', 'Worked with architects and the building authority.'],
    skills: ['AutoCAD', 'Structural analysis', 'Site supervision', 'Quantity surveying', 'ETABS', 'Project planning'],
    certifications: [PMP, NEBOSH, { name: 'Revit Structure', institution: 'Autodesk Training Centre' }],
  },
  '2144': {
    jobs: [
      {
        role: 'Mechanical engineer',
        lines: [
          'Planned the maintenance of production lines in a food factory.',
          'Designed machine parts in SolidWorks and supervised their manufacture.',
        ],
      },
      {
        role: 'HVAC engineer',
        lines: [
          'Designed heating, ventilation and air-conditioning systems for hospitals and offices.',
          'Commissioned chillers and air-handling units.',
        ],
      },
    ],
    extras: ["Cut the factory's energy use by replacing old compressors."],
    skills: ['SolidWorks', 'HVAC design', 'Preventive maintenance', 'Thermodynamics', 'AutoCAD'],
    certifications: [{ name: 'Certified SolidWorks Associate', institution: 'Dassault Systemes' }, NEBOSH],
  },
  '2151': {
    jobs: [
      {
        role: 'Electrical engineer',
        lines: [
          'Designed low- and medium-voltage installations for commercial buildings.',
          'Tested and commissioned switchgear and standby generators.',
        ],
      },
      {
        role: 'Power plant engineer',
        lines: [
          'Operated and maintained turbines and substations at a power station.',
          'Planned outages and led the maintenance crews.',
        ],
      },
      {
        role: 'Solar energy engineer',
        lines: [
          'Designed and installed solar power systems for clinics and schools.',
          'Sized batteries and inverters for sites without a reliable grid.',
        ],
      },
    ],
    extras: ['Wrote technical specifications for tenders.'],
    skills: ['Power distribution', 'Electrical design', 'PLC programming', 'Solar PV systems', 'AutoCAD Electrical'],
    certifications: [{ name: 'Solar PV Design and Installation', institution: 'Solar Energy International' }, NEBOSH],
  },
  '3118': {
    jobs: [
      {
        role: 'Draughtsperson',
        lines: [
          "Prepared architectural and structural drawings in AutoCAD from engineers' sketches.",
          'Produced shop drawings and as-built drawings for construction sites.',
        ],
      },
      {
        role: 'CAD technician',
        lines: [
          'Modelled buildings in Revit and kept the drawing register up to date.',
          'Checked drawings against the standards before they were issued.',
        ],
      },
    ],
    extras: ['Printed and archived drawing sets for the site.'],
    skills: ['AutoCAD', 'Revit', 'Technical drawing', '3D modelling'],
    certifications: [{ name: 'AutoCAD Certified Professional', institution: 'Autodesk Training Centre' }],
    vocationalCourse: 'Architectural Drafting',
  },
  '2310': {
    jobs: [
      {
        role: 'University lecturer',
        lines: [
          'Taught undergraduate courses and supervised final-year projects.',
          "Set and marked examinations and sat on the department's curriculum committee.",
        ],
      },
      {
        role: 'Assistant professor',
        lines: [
          "Published research in peer-reviewed journals and supervised master's students.",
          'Taught research methods and statistics to graduate students.',
        ],
      },
    ],
    extras: ['Taught classes of up to one hundred students.', "Taught online during the university's closure."],
    skills: ['Curriculum design', 'Academic research', 'Lecturing', 'Student supervision', 'Academic writing'],
    certifications: [{ name: 'Postgraduate Certificate in Higher Education Teaching', institution: 'Open University' }],
  },
  '2330': {
    jobs: [
      {
        role: 'Mathematics teacher',
        lines: [
          'Taught mathematics to classes of thirty-five students in grades 7 to 12.',
          'Prepared students for the national secondary school examinations.',
        ],
      },
      {
        role: 'Science teacher',
        lines: [
          'Taught physics and chemistry and ran the school laboratory.',
          'Taught biology and organised the school science fair.',
        ],
      },
      {
        role: 'English teacher',
        lines: [
          'Taught English as a foreign language to secondary students.',
          'Ran conversation clubs and prepared students for English exams.',
        ],
      },
    ],
    extras: [
      'Taught in a double-shift school for refugee and host-community children.',
      'Served as head of department and mentored new teachers.',
    ],
    skills: [
      'Lesson planning',
      'Classroom management',
      'Student assessment',
      'Mathematics teaching',
      'Science teaching',
    ],
    certifications: [
      { name: 'Teachers in Crisis Contexts', institution: 'INEE' },
      { name: 'CertTESOL', institution: 'Trinity College London' },
    ],
  },
  '2341': {
    jobs: [
      {
        role: 'Primary school teacher',
        lines: [
          'Taught reading, writing and arithmetic to classes of thirty to forty children.',
          "Met parents regularly to discuss their children's progress.",
        ],
      },
      {
        role: 'Teacher in a community learning centre',
        lines: [
          'Taught catch-up classes to children who had missed years of school.',
          'Taught literacy and numeracy in two languages.',
        ],
      },
    ],
    extras: ['Used play-based and psychosocial activities in class.'],
    skills: [
      'Lesson planning',
      'Classroom management',
      'Literacy teaching',
      'Psychosocial support',
      'Inclusive education',
    ],
    certifications: [{ name: 'Teachers in Crisis Contexts', institution: 'INEE' }, PFA],
  },
  '2342': {
    jobs: [
      {
        role: 'Kindergarten teacher',
        lines: [
          'Planned play-based activities for children aged three to six.',
          "Observed the children's development and reported to parents.",
        ],
      },
      {
        role: 'Early childhood educator',
        lines: [
          'Ran an early learning programme in a community centre.',
          'Trained volunteers to run reading and play sessions.',
        ],
      },
    ],
    extras: ['Kept the classroom safe and welcoming.'],
    skills: ['Early childhood development', 'Play-based learning', 'Child safeguarding', 'Parent communication'],
    certifications: [{ name: 'Early Childhood Care and Development', institution: 'UNICEF Learning Passport' }],
  },
  '2643': {
    jobs: [
      {
        role: 'Interpreter',
        lines: [
          'Interpreted at medical appointments, legal interviews and community meetings.',
          'Sight-translated forms and letters for clients.',
        ],
      },
      {
        role: 'Translator',
        lines: [
          'Translated reports, contracts and websites into and from English.',
          'Used translation memory tools and kept terminology glossaries.',
        ],
      },
    ],
    extras: ['Worked for an international humanitarian organisation.', 'Kept strict confidentiality.'],
    skills: [
      'Consecutive interpreting',
      'Translation',
      'Community interpreting',
      'Terminology management',
      'Proofreading',
    ],
    certifications: [
      { name: 'Community Interpreting Level 3', institution: 'Chartered Institute of Linguists' },
      { name: 'Medical Interpreter Training', institution: 'International Medical Corps' },
    ],
  },
  '2635': {
    jobs: [
      {
        role: 'Social worker',
        lines: [
          'Managed a caseload of forty families, assessing their needs and referring them to services.',
          'Ran support groups for women and adolescents.',
        ],
      },
      {
        role: 'Case manager',
        lines: [
          'Handled child protection cases and followed up with schools and health services.',
          'Assessed families for cash assistance and followed them up at home.',
        ],
      },
    ],
    extras: ['Kept confidential case records.'],
    skills: ['Case management', 'Psychosocial support', 'Child protection', 'Counselling', 'Community outreach'],
    certifications: [PFA, { name: 'Child Protection in Emergencies', institution: 'UNICEF Learning Passport' }],
  },
  '2411': {
    jobs: [
      {
        role: 'Accountant',
        lines: [
          'Kept the general ledger and prepared monthly and annual financial statements.',
          'Reconciled bank accounts and handled accounts payable and receivable.',
        ],
      },
      {
        role: 'Senior accountant',
        lines: [
          'Prepared tax returns and worked with the external auditors on the year-end audit.',
          'Led a team of three in the accounting department.',
        ],
      },
      {
        role: 'Auditor',
        lines: [
          'Audited the accounts of trading and manufacturing companies under IFRS.',
          'Tested internal controls and wrote audit reports for management.',
        ],
      },
    ],
    extras: ['Used accounting software such as QuickBooks and SAP.', 'Ran the payroll of eighty employees.'],
    skills: ['Financial accounting', 'IFRS', 'Tax returns', 'Payroll', 'Microsoft Excel', 'QuickBooks'],
    certifications: [
      { name: 'ACCA Diploma in Accounting and Business', institution: 'ACCA' },
      { name: 'Diploma in IFRS', institution: 'ACCA' },
      { name: 'Certified Management Accountant (CMA)', institution: 'Institute of Management Accountants' },
    ],
  },
  '3313': {
    jobs: [
      {
        role: 'Bookkeeper',
        lines: [
          'Recorded daily sales and purchases and kept the cash book.',
          'Prepared invoices, chased payments and reconciled supplier statements.',
        ],
      },
      {
        role: 'Accounts clerk',
        lines: [
          'Entered supplier invoices into the accounting system and prepared payments.',
          'Prepared the monthly VAT figures for the accountant.',
        ],
      },
    ],
    extras: ['Kept the petty cash.'],
    skills: ['Bookkeeping', 'Accounts payable', 'Invoicing', 'Microsoft Excel', 'Cash handling'],
    certifications: [{ name: 'Certified Accounting Technician', institution: 'ACCA' }, MOS],
    vocationalCourse: 'Accounting and Bookkeeping',
  },
  '4110': {
    jobs: [
      {
        role: 'Office clerk',
        lines: [
          'Handled correspondence, filing and data entry for a busy office.',
          'Scheduled appointments and answered telephone and written enquiries.',
        ],
      },
      {
        role: 'Administrative assistant',
        lines: [
          'Organised meetings, took minutes and ordered office supplies.',
          'Kept staff files and leave records up to date.',
        ],
      },
    ],
    extras: ['Welcomed visitors at the front desk.'],
    skills: ['Data entry', 'Microsoft Office', 'Filing and records', 'Customer service', 'Scheduling'],
    certifications: [MOS],
    vocationalCourse: 'Office Administration',
  },
  '2431': {
    jobs: [
      {
        role: 'Marketing officer',
        lines: [
          "Planned marketing campaigns and managed the company's social media accounts.",
          'Analysed sales data and market research to set prices and promotions.',
        ],
      },
      {
        role: 'Digital marketing specialist',
        lines: [
          'Ran search and social media advertising and reported on the results.',
          'Wrote newsletters and website content.',
        ],
      },
    ],
    extras: ['Organised trade fair stands.'],
    skills: ['Digital marketing', 'Social media', 'Market research', 'Google Analytics', 'Copywriting'],
    certifications: [
      { name: 'Google Ads Search Certification', institution: 'Google' },
      { name: 'Digital Marketing Fundamentals', institution: 'Google Digital Garage' },
    ],
  },
  '7212': {
    jobs: [
      {
        role: 'Welder',
        lines: [
          'Welded steel structures and pipelines using MIG, TIG and arc welding.',
          'Read welding drawings and prepared joints by cutting and grinding.',
        ],
      },
      {
        role: 'Pipe welder',
        lines: [
          'Welded carbon steel and stainless steel pipes for an oil refinery.',
          'Passed radiographic testing of pipe welds.',
        ],
      },
      {
        role: 'Welder and fabricator',
        lines: [
          'Fabricated gates, railings and steel frames in a metal workshop.',
          'Cut and bent sheet metal and welded it into tanks and trailers.',
        ],
      },
    ],
    extras: ['Worked to welding procedure specifications and quality checks.', 'Followed hot work safety procedures.'],
    skills: ['MIG welding', 'TIG welding', 'Arc welding', 'Blueprint reading', 'Metal fabrication', 'Oxy-fuel cutting'],
    certifications: [
      { name: 'Welder Qualification ISO 9606-1', institution: 'TUV Rheinland' },
      { name: 'AWS Certified Welder', institution: 'American Welding Society' },
      { name: 'Hot Work Safety', institution: 'Vocational Training Centre' },
    ],
    vocationalCourse: 'Welding and Fabrication',
  },
  '7411': {
    jobs: [
      {
        role: 'Electrician',
        lines: [
          'Installed wiring, sockets, lighting and distribution boards in new homes and offices.',
          'Found and repaired faults in electrical installations.',
        ],
      },
      {
        role: 'Industrial electrician',
        lines: [
          'Maintained motors, control panels and generators in a factory.',
          'Wired and tested motor control circuits.',
        ],
      },
      {
        role: 'Solar installer',
        lines: [
          'Installed solar panels, inverters and batteries on rooftops.',
          'Connected solar systems to homes and small businesses.',
        ],
      },
    ],
    extras: ['Tested installations and filled in the test certificates.', 'Worked to electrical safety rules.'],
    skills: ['Electrical wiring', 'Fault finding', 'Motor control', 'Solar PV installation', 'Reading wiring diagrams'],
    certifications: [
      { name: 'Electrical Installation Level 2', institution: 'City and Guilds' },
      { name: 'Solar PV Installer', institution: 'Vocational Training Centre' },
    ],
    vocationalCourse: 'Electrical Installation',
  },
  '7115': {
    jobs: [
      {
        role: 'Carpenter',
        lines: [
          'Built and fitted doors, windows, kitchens and built-in wardrobes.',
          'Made formwork and roof structures on building sites.',
        ],
      },
      {
        role: 'Furniture maker',
        lines: ['Made furniture to order in a family workshop.', 'Restored and varnished old wooden furniture.'],
      },
    ],
    extras: ['Ran woodworking machines safely.'],
    skills: ['Joinery', 'Furniture making', 'Formwork', 'Wood machining', 'Finishing and varnishing'],
    certifications: [SITE_SAFETY, { name: 'Woodworking Machinery Safety', institution: 'Vocational Training Centre' }],
    vocationalCourse: 'Carpentry and Joinery',
  },
  '7231': {
    jobs: [
      {
        role: 'Car mechanic',
        lines: [
          'Serviced and repaired petrol and diesel cars, from engines to brakes and suspension.',
          'Found faults with electronic diagnostic tools.',
        ],
      },
      {
        role: 'Heavy vehicle mechanic',
        lines: ['Maintained the trucks and buses of a transport company.', 'Overhauled diesel engines and gearboxes.'],
      },
    ],
    extras: ['Ran a small garage with two apprentices.'],
    skills: ['Engine repair', 'Vehicle diagnostics', 'Brake systems', 'Auto electrics', 'Diesel engines'],
    certifications: [
      { name: 'Automotive Service Technician Certificate', institution: 'Vocational Training Centre' },
      { name: 'Hybrid and Electric Vehicle Safety', institution: 'Institute of the Motor Industry' },
    ],
    vocationalCourse: 'Automotive Mechanics',
  },
  '7126': {
    jobs: [
      {
        role: 'Plumber',
        lines: [
          'Installed and repaired water supply, drainage and heating systems in homes.',
          'Fitted bathrooms and kitchens and fixed leaks.',
        ],
      },
      {
        role: 'Pipe fitter',
        lines: [
          'Installed steel and plastic pipework in hospitals and factories.',
          'Pressure-tested pipework before handover.',
        ],
      },
    ],
    extras: ['Installed water tanks and pumps on rooftops.'],
    skills: ['Pipe fitting', 'Drainage', 'Heating systems', 'Water supply', 'Soldering'],
    certifications: [SITE_SAFETY, { name: 'Water Supply Regulations', institution: 'Vocational Training Centre' }],
    vocationalCourse: 'Plumbing and Heating',
  },
  '7112': {
    jobs: [
      {
        role: 'Bricklayer',
        lines: [
          'Built walls in brick and concrete block on residential building sites.',
          'Set out walls from drawings and kept them level and plumb.',
        ],
      },
      {
        role: 'Stonemason',
        lines: ['Laid stone walls and repaired old stone buildings.', 'Cut and dressed stone by hand.'],
      },
    ],
    extras: ['Plastered and rendered walls.'],
    skills: ['Bricklaying', 'Blockwork', 'Plastering', 'Reading drawings', 'Stone masonry'],
    certifications: [SITE_SAFETY],
    vocationalCourse: 'Building Construction',
  },
  '7122': {
    jobs: [
      {
        role: 'Tile setter',
        lines: [
          'Laid ceramic and marble tiles on floors and walls in homes and hotels.',
          'Prepared surfaces and levelled screeds before tiling.',
        ],
      },
      {
        role: 'Floor layer',
        lines: ['Fitted laminate, vinyl and wooden floors.', 'Waterproofed bathrooms before tiling.'],
      },
    ],
    extras: ['Gave customers quotes for materials and work.'],
    skills: ['Tiling', 'Marble laying', 'Screeding', 'Waterproofing'],
    certifications: [SITE_SAFETY],
    vocationalCourse: 'Building Finishing',
  },
  '7531': {
    jobs: [
      {
        role: 'Tailor',
        lines: [
          'Made and altered suits, dresses and traditional clothing to measure.',
          'Cut patterns and sewed garments by hand and by machine.',
        ],
      },
      {
        role: 'Sewing machine operator',
        lines: [
          'Sewed garments on industrial machines in a clothing factory.',
          'Met daily production targets and checked seams for quality.',
        ],
      },
    ],
    extras: ['Ran a small tailoring shop.'],
    skills: ['Pattern cutting', 'Sewing', 'Garment alterations', 'Industrial sewing machines', 'Embroidery'],
    certifications: [{ name: 'Garment Making Certificate', institution: 'Vocational Training Centre' }],
    vocationalCourse: 'Tailoring and Garment Making',
  },
  '7512': {
    jobs: [
      {
        role: 'Baker',
        lines: [
          'Baked bread, flatbread and pastries from early morning for a neighbourhood bakery.',
          'Mixed doughs, ran the ovens and kept the bakery clean to food safety rules.',
        ],
      },
      {
        role: 'Pastry cook',
        lines: [
          'Made cakes, traditional sweets and desserts for a patisserie.',
          'Decorated cakes for weddings and celebrations.',
        ],
      },
    ],
    extras: ['Ordered flour and ingredients.'],
    skills: ['Bread making', 'Pastry making', 'Dough preparation', 'Food safety'],
    certifications: [FOOD_SAFETY, { name: 'HACCP Level 2', institution: 'Hospitality Training Institute' }],
    vocationalCourse: 'Baking and Pastry',
  },
  '8332': {
    jobs: [
      {
        role: 'Truck driver',
        lines: [
          'Drove heavy trucks on long-distance routes across the region.',
          'Loaded and secured cargo and kept the driving log.',
        ],
      },
      {
        role: 'Tanker driver',
        lines: [
          'Delivered fuel to petrol stations under dangerous goods rules.',
          'Checked the vehicle and its safety equipment before every trip.',
        ],
      },
    ],
    extras: ['Drove across borders with customs paperwork.'],
    skills: ['Heavy vehicle driving', 'Cargo securing', 'Route planning', 'Vehicle inspection'],
    certifications: [
      { name: 'Heavy Vehicle Licence Training', institution: 'National Driving Institute' },
      { name: 'ADR Dangerous Goods Driver Training', institution: 'National Driving Institute' },
    ],
    vocationalCourse: 'Transport and Logistics',
  },
  '8322': {
    jobs: [
      {
        role: 'Driver',
        lines: [
          'Drove staff and visitors for an international organisation.',
          'Kept the vehicle serviced and the logbook up to date.',
        ],
      },
      {
        role: 'Delivery driver',
        lines: [
          'Delivered parcels and groceries to customers across the city.',
          'Planned delivery rounds of forty stops a day.',
        ],
      },
    ],
    extras: ['Drove in city traffic and on mountain roads.'],
    skills: ['Safe driving', 'Route planning', 'Vehicle maintenance', 'Customer service'],
    certifications: [{ name: 'Defensive Driving', institution: 'National Driving Institute' }, FIRST_AID],
    vocationalCourse: 'Transport and Logistics',
  },
  '5120': {
    jobs: [
      {
        role: 'Cook',
        lines: [
          'Prepared meals in a restaurant kitchen serving up to two hundred guests a day.',
          'Prepared grills, stews and salads to order.',
        ],
      },
      {
        role: 'Chef de partie',
        lines: [
          'Ran the grill section of a hotel kitchen and trained kitchen helpers.',
          'Prepared banquets for events.',
        ],
      },
      {
        role: 'Catering cook',
        lines: ['Cooked for large groups at weddings and events.', 'Cooked meals for a school canteen.'],
      },
    ],
    extras: ['Kept the kitchen clean to food safety rules.', 'Ordered ingredients and controlled food costs.'],
    skills: ['Cooking for large groups', 'Grilling', 'Menu planning', 'Food safety', 'Kitchen hygiene'],
    certifications: [FOOD_SAFETY, { name: 'HACCP Level 2', institution: 'Hospitality Training Institute' }],
    vocationalCourse: 'Culinary Arts',
  },
  '5131': {
    jobs: [
      {
        role: 'Waiter',
        lines: ['Served guests in a busy restaurant and took orders.', 'Set tables and took payments.'],
      },
      {
        role: 'Barista',
        lines: ['Made coffee and served customers in a cafe.', 'Opened and closed the cafe and counted the till.'],
      },
    ],
    extras: ['Worked evening and weekend shifts.'],
    skills: ['Customer service', 'Table service', 'Cash handling', 'Coffee making'],
    certifications: [{ name: 'Barista Skills', institution: 'Specialty Coffee Association' }, FOOD_SAFETY],
    vocationalCourse: 'Hospitality Services',
  },
  '5141': {
    jobs: [
      {
        role: 'Hairdresser',
        lines: ['Cut, coloured and styled hair in a salon.', 'Advised clients on hair care products.'],
      },
      { role: 'Barber', lines: ['Ran a barber shop with two chairs.', 'Cut hair and trimmed beards.'] },
    ],
    extras: ['Kept tools and the salon clean and disinfected.'],
    skills: ['Hair cutting', 'Hair colouring', 'Hair styling', 'Beard grooming', 'Customer service'],
    certifications: [{ name: 'Hairdressing Level 2', institution: 'Vocational Training Centre' }],
    vocationalCourse: 'Hairdressing',
  },
  '5223': {
    jobs: [
      {
        role: 'Shop assistant',
        lines: [
          'Served customers, stocked shelves and worked the till in a supermarket.',
          'Received deliveries and checked stock.',
        ],
      },
      {
        role: 'Sales assistant',
        lines: ['Sold mobile phones and accessories in a retail shop.', 'Reached monthly sales targets.'],
      },
    ],
    extras: ['Opened and closed the shop.'],
    skills: ['Customer service', 'Cash handling', 'Stock control', 'Sales'],
    certifications: [{ name: 'Retail Customer Service', institution: 'Vocational Training Centre' }],
    vocationalCourse: 'Retail Sales',
  },
  '5311': {
    jobs: [
      {
        role: 'Childcare worker',
        lines: [
          'Looked after groups of young children in a day-care centre.',
          'Prepared meals and activities and kept the children safe.',
        ],
      },
      {
        role: 'Child-friendly space facilitator',
        lines: [
          'Ran play and learning activities in a child-friendly space.',
          'Referred children at risk to case workers.',
        ],
      },
    ],
    extras: ['Kept daily records for parents.'],
    skills: ['Childcare', 'Play activities', 'Child safeguarding', 'Paediatric first aid'],
    certifications: [
      { name: 'Early Childcare Certificate', institution: 'Community College' },
      { name: 'Paediatric First Aid', institution: 'Red Crescent Society' },
    ],
    vocationalCourse: 'Childcare',
  },
  '6111': {
    jobs: [
      {
        role: 'Farmer',
        lines: [
          'Grew wheat, vegetables and olives on the family farm.',
          'Ran the irrigation and looked after tractors and equipment.',
        ],
      },
      {
        role: 'Greenhouse worker',
        lines: ['Grew tomatoes and cucumbers in greenhouses for export.', 'Planted, pruned and harvested by hand.'],
      },
      {
        role: 'Livestock farmer',
        lines: ['Raised sheep and goats and sold milk products.', "Looked after the animals' health and feed."],
      },
    ],
    extras: ['Sold produce at the local market.'],
    skills: ['Crop production', 'Irrigation', 'Tractor driving', 'Livestock care', 'Greenhouse growing'],
    certifications: [{ name: 'Safe Use of Pesticides', institution: 'Ministry of Agriculture' }],
    vocationalCourse: 'Agriculture',
  },
};
